package validate

import (
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/internal/suggest"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/spec"
	"github.com/gpufleet/gpufleet/compiler/wire/schedconfig"
)

// maxStatefulSetName leaves room for "-" and the revision hash in a label.
const maxStatefulSetName = 52

func (c *checker) classes() {
	products := c.cat.Products()
	for _, name := range spec.Keys(c.f.Classes) {
		cl := c.f.Classes[name]
		if _, ok := c.f.Priorities[cl.Priority]; !ok {
			c.errorf(p("classes", name, "priority"), "class %q names priority %q, which is not defined%s", name, cl.Priority, suggest.Hint(cl.Priority, spec.Keys(c.f.Priorities)))
		}
		// The StatefulSet controller labels each pod with
		// controller-revision-hash <name>-<10-character hash>, a label
		// value of at most 63: a longer name makes every pod creation fail.
		if cl.Kind == keys.KindStatefulSet && len(name) > maxStatefulSetName {
			c.errorf(p("classes", name), "class name %q is %d characters: a StatefulSet's name may have at most %d, or the controller cannot create its pods (their controller-revision-hash label would pass 63)", name, len(name), maxStatefulSetName)
		}
		if cl.EFA > 0 && !c.anyEFAPool() {
			efa, _ := c.cloud.Fabric()
			c.errorf(p("classes", name, "efa"), "class %q requests %d EFA interfaces, but no pool sets efa: true, so no node advertises %s", name, cl.EFA, efa)
		}
		if cl.Gang != nil && cl.Kind != keys.KindJob {
			c.errorf(p("classes", name, "gang"), "gang needs kind Job, not %s: only a Job runs its pods all at once", cl.Kind)
		}
		if cl.Checkpoint != nil && cl.Kind != keys.KindJob {
			c.errorf(p("classes", name, "checkpoint"), "checkpoint needs kind Job, not %s: a %s's pods are replaced by its controller and kept up by its PodDisruptionBudget", cl.Kind, cl.Kind)
		}
		if cl.Rollout != nil && cl.Kind != keys.KindDeployment {
			c.errorf(p("classes", name, "rollout"), "rollout needs kind Deployment, not %s: only a Deployment's rolling update surges and takes pods down", cl.Kind)
		} else if cl.Rollout != nil {
			c.rollout(name, *cl.Rollout)
		}
		c.topology(name, cl)
		c.maxRunTime(name, cl)
		if cl.BackoffLimit != nil && cl.Kind != keys.KindJob {
			c.errorf(p("classes", name, "backoffLimit"), "backoffLimit needs kind Job, not %s: only a Job fails after retries", cl.Kind)
		}
		if cl.GPU != nil {
			for i, prod := range cl.GPU.Products {
				if !contains(products, prod) {
					c.errorf(p("classes", name, "gpu", "products", strconv.Itoa(i)), "unknown GPU product %q%s (known: %s)", prod, suggest.Hint(prod, products), quoted(products))
				}
			}
			c.gpuKind(*cl.GPU, "classes", name, "gpu")
		}
		c.roles(name, cl, products)
		c.quantity(cl.Resources.CPU, "classes", name, "resources", "cpu")
		c.quantity(cl.Resources.Memory, "classes", name, "resources", "memory")
		c.quantity(cl.Overhead.CPU, "classes", name, "overhead", "cpu")
		c.quantity(cl.Overhead.Memory, "classes", name, "overhead", "memory")
		c.containers(name, cl)
		if (cl.Overhead.CPU != "" || cl.Overhead.Memory != "") && cl.RuntimeClass == "" {
			c.errorf(p("classes", name, "overhead"), "overhead needs runtimeClassName: the API server only accepts the overhead of the pod's RuntimeClass")
		}
		if cl.RuntimeClass != "" {
			for _, msg := range validation.IsDNS1123Subdomain(cl.RuntimeClass) {
				c.errorf(p("classes", name, "runtimeClassName"), "runtime class name %q is invalid: %s", cl.RuntimeClass, msg)
			}
		}
		if cl.SchedulerName != "" {
			for _, msg := range validation.IsDNS1123Subdomain(cl.SchedulerName) {
				c.errorf(p("classes", name, "schedulerName"), "scheduler name %q is invalid: %s", cl.SchedulerName, msg)
			}
		}
		c.schedulerProfile(name, cl)
		c.labels(cl.NodeSelector, "classes", name, "nodeSelector")
		c.tolerations(name, cl.Tolerations)
		for i, t := range cl.Affinity.Required {
			c.term(t, "classes", name, "affinity", "required", strconv.Itoa(i))
		}
		for i, t := range cl.Affinity.Preferred {
			c.term(t.Term, "classes", name, "affinity", "preferred", strconv.Itoa(i), "term")
		}
	}
}

// gpuKind checks a class's (or role's) MIG profile and shared flag; at
// is the gpu's path.
func (c *checker) gpuKind(g spec.GPU, at ...string) {
	if g.MIG == "" {
		return
	}
	if g.Shared {
		c.errorf(under(at, "shared"), "shared and mig are mutually exclusive: a MIG slice is not a time-sliced GPU")
	}
	if len(catalog.LayoutsWithProfile(g.MIG)) == 0 {
		c.errorf(under(at, "mig"), "unknown MIG profile %q, e.g. \"1g.10gb\" (A100 80 GB, H100)", g.MIG)
	}
	for i, prod := range g.Products {
		if !catalog.SupportsMIG(prod) {
			c.errorf(under(at, "products", strconv.Itoa(i)), "product %q has no MIG, so never offers MIG profile %q", prod, g.MIG)
		}
	}
}

// under is the path at, then more.
func under(at []string, more ...string) []string {
	return append(append([]string{}, at...), more...)
}

// schedulerProfile rejects a class that names a gpufleet profile's
// scheduler by hand: the profile's config is only emitted for classes that
// choose it, so such pods could wait for a scheduler nobody deployed.
func (c *checker) schedulerProfile(name string, cl spec.Class) {
	if cl.SchedulerProfile != "" && cl.SchedulerName != "" {
		c.errorf(p("classes", name, "schedulerProfile"), "schedulerProfile and schedulerName are mutually exclusive: profile %q sets schedulerName %q",
			cl.SchedulerProfile, schedconfig.SchedulerNames[cl.SchedulerProfile])
	}
	for _, profile := range spec.Keys(schedconfig.SchedulerNames) {
		if cl.SchedulerName == schedconfig.SchedulerNames[profile] {
			c.errorf(p("classes", name, "schedulerName"), "scheduler name %q is gpufleet's %s profile: set schedulerProfile: %q instead, so that its config is emitted",
				cl.SchedulerName, profile, profile)
		}
	}
}

func (c *checker) containers(name string, cl spec.Class) {
	names := []string{cl.Container}
	for i, ic := range cl.InitContainers {
		names = append(names, ic.Name)
		c.quantity(ic.CPU, "classes", name, "initContainers", strconv.Itoa(i), "cpu")
		c.quantity(ic.Memory, "classes", name, "initContainers", strconv.Itoa(i), "memory")
	}
	for i, n := range names {
		path := p("classes", name, "container")
		if i > 0 {
			path = p("classes", name, "initContainers", strconv.Itoa(i-1), "name")
		}
		for _, msg := range validation.IsDNS1123Label(n) {
			c.errorf(path, "container name %q is invalid: %s", n, msg)
		}
	}
	for _, i := range duplicates(names) {
		c.errorf(p("classes", name, "initContainers", strconv.Itoa(i-1), "name"), "container name %q is used twice", names[i])
	}
}

// tolerations applies the API server's rules for tolerations.
func (c *checker) tolerations(name string, ts []spec.Toleration) {
	for i, t := range ts {
		tp := p("classes", name, "tolerations", strconv.Itoa(i))
		if t.Key != "" {
			for _, msg := range validation.IsQualifiedName(t.Key) {
				c.errorf(tp, "toleration key %q is invalid: %s", t.Key, msg)
			}
		}
		switch {
		case t.Key == "" && t.Operator != "Exists":
			c.errorf(tp, "toleration with an empty key must use operator Exists")
		case t.Operator == "Exists" && t.Value != "":
			c.errorf(tp, "toleration value must be empty when operator is Exists")
		case t.Operator == "Equal":
			for _, msg := range validation.IsValidLabelValue(t.Value) {
				c.errorf(tp, "toleration value %q is invalid: %s", t.Value, msg)
			}
		}
		if t.TolerationSeconds != nil && t.Effect != "NoExecute" {
			c.errorf(tp, "tolerationSeconds needs effect NoExecute")
		}
	}
}

// term applies the API server's rules for node selector requirements.
func (c *checker) term(t spec.NodeSelectorTerm, path ...string) {
	if len(t.MatchExpressions) == 0 {
		c.errorf(path, "a node selector term needs at least one expression; an empty term matches no node")
	}
	for i, r := range t.MatchExpressions {
		rp := append(append([]string{}, path...), "matchExpressions", strconv.Itoa(i))
		for _, msg := range validation.IsQualifiedName(r.Key) {
			c.errorf(rp, "key %q is invalid: %s", r.Key, msg)
		}
		switch r.Operator {
		case "In", "NotIn":
			if len(r.Values) == 0 {
				c.errorf(rp, "operator %s needs at least one value", r.Operator)
			}
		case "Exists", "DoesNotExist":
			if len(r.Values) > 0 {
				c.errorf(rp, "operator %s takes no values", r.Operator)
			}
		case "Gt", "Lt":
			if len(r.Values) != 1 {
				c.errorf(rp, "operator %s needs exactly one value", r.Operator)
			} else if _, err := strconv.ParseInt(r.Values[0], 10, 64); err != nil {
				c.errorf(rp, "operator %s needs an integer value, got %q", r.Operator, r.Values[0])
			}
		}
	}
}

func (c *checker) anyEFAPool() bool {
	for _, p := range c.f.Pools {
		if p.EFA {
			return true
		}
	}
	return false
}
