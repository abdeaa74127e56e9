package derive

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/compiler/wire/kueue"
)

// landing memoises what many tenants ask the same, since a big fleet has
// thousands of tenants and pools: per class, the pools it lands on and
// those of them whose flavor Kueue admits it to (indices into Fleet.Pools,
// in order); per pool and resource, the pool's units; per class and tenant
// defaults, the request Kueue counts.
type landing struct {
	d            *Fleet
	landsOn      func(class string) []string
	poolAt       map[string]int
	on, admitted map[string][]int
	units        map[poolResource]int64
	requests     map[classDefaults]corev1.ResourceList
}

type poolResource struct {
	pool string
	r    corev1.ResourceName
}

// classDefaults keys admittedRequest: a tenant changes it only through
// its defaults (LimitDefaults).
type classDefaults struct {
	class    string
	defaults spec.Resources
}

func newLanding(d *Fleet, landsOn func(class string) []string) *landing {
	at := make(map[string]int, len(d.Pools))
	for i, p := range d.Pools {
		at[p.Name] = i
	}
	return &landing{d: d, landsOn: landsOn, poolAt: at, on: map[string][]int{}, admitted: map[string][]int{},
		units: map[poolResource]int64{}, requests: map[classDefaults]corev1.ResourceList{}}
}

// lands is the indexes, ascending, of the pools the class lands on.
func (l *landing) lands(c *Class) []int {
	if at, ok := l.on[c.Name]; ok {
		return at
	}
	at := []int{}
	for _, p := range l.landsOn(c.Name) {
		if i, ok := l.poolAt[p]; ok {
			at = append(at, i)
		}
	}
	slices.Sort(at)
	l.on[c.Name] = at
	return at
}

func (l *landing) admittedOn(c *Class) []int {
	if at, ok := l.admitted[c.Name]; ok {
		return at
	}
	at := []int{}
	pod := &corev1.Pod{ObjectMeta: c.Template.ObjectMeta, Spec: c.Template.Spec}
	for _, i := range l.lands(c) {
		p := l.d.Pools[i]
		if ok, _ := kueue.Admits(p.Name, Flavor(p), pod); ok {
			at = append(at, i)
		}
	}
	l.admitted[c.Name] = at
	return at
}

// unitsOf is the pool's Units of r, in r's quota unit.
func (l *landing) unitsOf(pool string, r corev1.ResourceName) int64 {
	k := poolResource{pool, r}
	v, ok := l.units[k]
	if !ok {
		v = l.d.Pool(pool).Units(r, unitOf(r))
		l.units[k] = v
	}
	return v
}

// request is admittedRequest of the class in the tenant's namespaces. The
// list is shared by every tenant with the same defaults: its quantities
// must be copied (DeepCopy) before they are changed.
func (l *landing) request(t spec.Tenant, c *Class) corev1.ResourceList {
	k := classDefaults{c.Name, t.Defaults}
	req, ok := l.requests[k]
	if !ok {
		req = admittedRequest(t, c.Template.Spec)
		l.requests[k] = req
	}
	return req
}
