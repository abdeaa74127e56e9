package derive

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/internal/par"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/compiler/wire/kueue"
)

// landing memoises what many tenants ask the same, since a big fleet has
// thousands of tenants and pools: per class, the pools it lands on and
// those of them whose flavor Kueue admits it to (indices into Fleet.Pools,
// in order), decided once by prepare and then only read; and in each
// worker's own copy, per pool and resource, the pool's units, and per
// class and tenant defaults, the request Kueue counts.
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
	l := &landing{d: d, landsOn: landsOn, poolAt: at, on: map[string][]int{}, admitted: map[string][]int{}}
	return l.worker()
}

// worker is a copy of l for one goroutine: the class memos shared, the
// units and requests its own.
func (l *landing) worker() *landing {
	w := *l
	w.units, w.requests = map[poolResource]int64{}, map[classDefaults]corev1.ResourceList{}
	return &w
}

// prepare decides where each queued class of the tenants lands, and on
// every CPU where it is admitted (landsOn is the caller's, asked on one).
func (l *landing) prepare(tenants []Tenant) {
	var classes []*Class
	seen := map[string]bool{}
	for _, t := range tenants {
		for _, name := range t.Spec.Classes {
			if c := l.d.Class(name); c != nil && c.Spec.Queued() && !seen[name] {
				seen[name] = true
				classes = append(classes, c)
			}
		}
	}
	on, admitted := make([][]int, len(classes)), make([][]int, len(classes))
	for i, c := range classes {
		on[i] = l.landsAnew(c)
	}
	par.Each(len(classes), func(i int) { admitted[i] = l.admittedAnew(classes[i], on[i]) })
	for i, c := range classes {
		l.on[c.Name], l.admitted[c.Name] = on[i], admitted[i]
	}
}

// lands is the indexes, ascending, of the pools the class lands on.
func (l *landing) lands(c *Class) []int {
	if at, ok := l.on[c.Name]; ok {
		return at
	}
	return l.landsAnew(c) // not kept: workers share l.on
}

// landsAnew asks where the class lands: an ML class's pools are those of
// every role, so that its tenants' queues offer a flavor for each of its
// PodSets (a CPU-only Ray head's pool beside its workers' GPU pools).
func (l *landing) landsAnew(c *Class) []int {
	at := l.landsRow(c.Name)
	for _, r := range c.Roles {
		for _, i := range l.landsRow(spec.RoleRow(c.Name, r.Spec.Name)) {
			if !slices.Contains(at, i) {
				at = append(at, i)
			}
		}
	}
	slices.Sort(at)
	return at
}

// landsRow is the indexes, ascending, of the pools the checker's row of
// that name lands on: an ML class's primary role's (its own row), or one
// of its other roles' (spec.RoleRow).
func (l *landing) landsRow(row string) []int {
	at := []int{}
	for _, p := range l.landsOn(row) {
		if i, ok := l.poolAt[p]; ok {
			at = append(at, i)
		}
	}
	slices.Sort(at)
	return at
}

// admittedOn is the indexes of the pools the class lands on whose flavor
// Kueue admits it to.
func (l *landing) admittedOn(c *Class) []int {
	if at, ok := l.admitted[c.Name]; ok {
		return at
	}
	return l.admittedAnew(c, l.lands(c))
}

func (l *landing) admittedAnew(c *Class, lands []int) []int {
	at := []int{}
	admits := kueue.Admitter(&corev1.Pod{ObjectMeta: c.Template.ObjectMeta, Spec: c.Template.Spec})
	for _, i := range lands {
		p := l.d.Pools[i]
		if ok, _ := admits(p.Name, Flavor(p)); ok {
			at = append(at, i)
		}
	}
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
