package check

import "fmt"

// Capacity requires all of a Deployment's or StatefulSet's replicas to fit
// at once on the pools it can land on, at their max size: the replicas
// that cannot run stay Pending for ever.
func Capacity(c *Class, w *Row, pools []Pool) []Finding {
	if c.Gang {
		return nil
	}
	return shortfall(c, w, pools, IDCapacity, fmt.Sprintf("%d replicas cannot all run", c.Pods))
}
