package derive

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// System is where the tree's own components run: the pools marked system,
// and a toleration of each taint their nodes carry. Empty when none is:
// the components then need an untainted pool (the checker's SystemLands).
type System struct {
	Pools       []string
	Tolerations []corev1.Toleration
}

// system places the tree's components on the system pools. Each taint is
// tolerated with its value, so that a system pool's dedication or spot
// taint lets them onto that pool and not onto another's.
func system(pools []Pool) System {
	var s System
	for _, p := range pools {
		if !p.Spec.System {
			continue
		}
		s.Pools = append(s.Pools, p.Name)
		for _, t := range p.Taints {
			tol := corev1.Toleration{Key: t.Key, Operator: corev1.TolerationOpEqual, Value: t.Value, Effect: t.Effect}
			if !slices.Contains(s.Tolerations, tol) {
				s.Tolerations = append(s.Tolerations, tol)
			}
		}
	}
	slices.SortFunc(s.Tolerations, func(a, b corev1.Toleration) int {
		if a.Key != b.Key {
			return strings.Compare(a.Key, b.Key)
		}
		if a.Value != b.Value {
			return strings.Compare(a.Value, b.Value)
		}
		return strings.Compare(string(a.Effect), string(b.Effect))
	})
	return s
}
