package check

import corev1 "k8s.io/api/core/v1"

// KueueMemo answers as Kueue's checks do, from their memo: for a class
// and a flavor, whether Kueue admits it, and for a class and a namespace,
// the request it counts; each says whether the memo held it (else it was
// decided anew).
type KueueMemo struct {
	Admits  func(c *Class, flavor string) (ok bool, reason string, held bool)
	Request func(c *Class, ns string) (req corev1.ResourceList, held bool)
}

func NewKueueMemo(m *KueueModel, cl *Cluster, queues []QueueIntent) KueueMemo {
	memo := newKueueMemo(m, cl, queues)
	return KueueMemo{
		Admits: func(c *Class, f string) (bool, string, bool) {
			_, held := memo.admits[c.Name][f]
			ok, reason := memo.admitter(m, c)(f)
			return ok, reason, held
		},
		Request: func(c *Class, ns string) (corev1.ResourceList, bool) {
			_, held := memo.requests[c.Name][memo.limits[ns]]
			return memo.request(m, c, ns), held
		},
	}
}
