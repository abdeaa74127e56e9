package plan

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpufleet/gpufleet/compiler/nodes"
)

// classified is state() with a Karpenter pool k, tenant t's namespaces and
// a PriorityClass p.
func classified() *State {
	s := state()
	s.Groups[0].Names, s.Groups[0].Image = []string{"a"}, "AmazonLinux2023"
	s.Groups[0].Fixed = &nodes.Fixed{Fields: []string{"instanceTypes", "capacityType", "zones", "amiFamily"},
		Why: "the cloud cannot change a managed node group's %s in place", Renamed: "node groups %s deleted and %s created"}
	s.Groups = append(s.Groups, nodes.Group{Pool: "k", Names: []string{"k"}, Source: "karpenter", InstanceTypes: []string{"g5.xlarge", "g5.2xlarge"},
		Zones: []string{"z1", "z2"}, MaxNodes: 4, KarpenterNodes: 4, Image: "al2023", Labels: map[string]string{"gpu": "A10G"}})
	s.Namespaces = map[string][]string{"t": {"n1", "n2"}}
	s.PriorityClasses = map[string]PriorityClass{"p": NewPriorityClass("p", 1000, nil)}
	s.ClaimTemplates = map[string]string{"n1/gpu": `{"count":1}`}
	return s
}

// Every kind of change gets its action, as the component that decides it
// does: EKS's update APIs, Karpenter's drift, the API server's update
// validation, a prune.
func TestClassify(t *testing.T) {
	never := corev1.PreemptNever
	lower := corev1.PreemptLowerPriority
	for _, tc := range []struct {
		name   string
		edit   func(s *State)
		files  []FileChange
		counts [5]int // create, update, replace, destroy, refused
		want   []string
	}{
		{"managed max grows", func(s *State) { s.Groups[0].MaxNodes = 8 }, nil, [5]int{0, 1, 0, 0, 0}, []string{"~ pool a's node groups: max 4 → 8 nodes"}},
		{"managed instance type", func(s *State) { s.Groups[0].InstanceTypes = []string{"g6.xlarge"} }, nil, [5]int{0, 0, 1, 0, 0},
			[]string{"Replaced:\n  - -/+ pool a's node groups: instance types g5.xlarge → g6.xlarge; the cloud cannot change a managed node group's instance types in place", "classes that land there: c"}},
		{"managed capacity type and zones", func(s *State) { s.Groups[0].Spot, s.Groups[0].Zones = true, []string{"z2"} }, nil, [5]int{0, 0, 1, 0, 0},
			[]string{"managed node group's capacity type, zones (subnets) in place"}},
		{"managed AMI family", func(s *State) { s.Groups[0].Image = "Bottlerocket" }, nil, [5]int{0, 0, 1, 0, 0}, []string{"AMI family AmazonLinux2023 → Bottlerocket; the cloud cannot change"}},
		{"zoneGroups on", func(s *State) { s.Groups[0].Names = []string{"a-z1"} }, nil, [5]int{0, 0, 1, 0, 0}, []string{"node groups a deleted and a-z1 created"}},
		{"managed labels", func(s *State) { s.Groups[0].Labels = map[string]string{"x": "y"} }, nil, [5]int{0, 1, 0, 0, 0}, []string{"~ pool a's node groups: node labels change"}},
		{"pool removed", func(s *State) { s.Groups = s.Groups[1:] }, nil, [5]int{0, 0, 0, 1, 0}, []string{"Destroyed:\n  - - pool a's node groups: removed"}},
		{"Karpenter requirement widened", func(s *State) { s.Groups[1].Zones = []string{"z1", "z2", "z3"} }, nil, [5]int{0, 1, 0, 0, 0}, []string{"~ pool k's node groups: zones z1, z2 → z1, z2, z3"}},
		{"Karpenter requirement narrowed", func(s *State) { s.Groups[1].InstanceTypes = []string{"g5.xlarge"} }, nil, [5]int{0, 0, 1, 0, 0},
			[]string{"Karpenter drifts the nodes of instance type g5.2xlarge (RequirementsDrifted)"}},
		{"Karpenter labels", func(s *State) { s.Groups[1].Labels = map[string]string{"gpu": "L4"} }, nil, [5]int{0, 0, 1, 0, 0}, []string{"Karpenter drifts every node of its NodePool (NodePoolDrifted)"}},
		{"Karpenter AMI family", func(s *State) { s.Groups[1].Image = "bottlerocket" }, nil, [5]int{0, 0, 1, 0, 0}, []string{"(NodeClassDrift)"}},
		{"Karpenter expireAfter", func(s *State) { s.Groups[1].ExpireAfter = "720h" }, nil, [5]int{0, 0, 1, 0, 0}, []string{"nodes expire after none → 720h; Karpenter drifts every node of its NodePool (NodePoolDrifted)"}},
		{"Karpenter EC2NodeClass", func(s *State) { s.Groups[1].NodeClass, s.Groups[1].Image = "bottlerocket", "bottlerocket" }, nil, [5]int{0, 0, 1, 0, 0}, []string{"(NodePoolDrifted)"}},
		{"Karpenter max", func(s *State) { s.Groups[1].MaxNodes, s.Groups[1].KarpenterNodes = 8, 8 }, nil, [5]int{0, 1, 0, 0, 0}, nil},
		{"tenant removed", func(s *State) { delete(s.Namespaces, "t"); delete(s.Quotas, "t") }, nil, [5]int{0, 0, 0, 1, 0},
			[]string{"- tenant t: removed: its namespaces n1, n2 deleted on prune, with every workload, volume claim and secret in them"}},
		{"namespace removed", func(s *State) { s.Namespaces["t"] = []string{"n1"} }, nil, [5]int{0, 0, 0, 1, 0}, []string{"- tenant t: namespace n2 deleted on prune"}},
		{"class removed", func(s *State) {
			s.Report.Classes = nil
			delete(s.Report.Lands, "c")
			delete(s.Report.Units, "c")
		}, nil, [5]int{0, 0, 0, 1, 0}, []string{"- class c: removed: on prune its Component (classes/c/) is deleted"}},
		{"Component changed", func(*State) {}, []FileChange{{Path: "classes/c/patch-deployment.yaml", Kind: "changed"}}, [5]int{0, 1, 0, 0, 0},
			[]string{"Workloads restarted:\n  - ~ class c: pod template changes: every Deployment and StatefulSet that includes its Component rolls"}},
		{"only the example changed", func(*State) {}, []FileChange{{Path: "classes/c/example.yaml", Kind: "changed"}}, [5]int{}, nil},
		{"PriorityClass value", func(s *State) { s.PriorityClasses["p"] = NewPriorityClass("p", 2000, nil) }, nil, [5]int{0, 0, 0, 0, 1},
			[]string{"Refused by the API server:\n  - ! PriorityClass p: refused: the API server refuses the update (value: Forbidden: may not be changed in an update.)", "'kubectl delete priorityclass p'"}},
		{"PriorityClass policy", func(s *State) { s.PriorityClasses["p"] = NewPriorityClass("p", 1000, &never) }, nil, [5]int{0, 0, 0, 0, 1},
			[]string{`preemptionPolicy: Invalid value: "Never": field is immutable`}},
		{"PriorityClass policy set to its default", func(s *State) { s.PriorityClasses["p"] = NewPriorityClass("p", 1000, &lower) }, nil, [5]int{}, nil},
		{"ResourceClaimTemplate spec", func(s *State) { s.ClaimTemplates = map[string]string{"n1/gpu": `{"count":2}`} }, nil, [5]int{0, 0, 0, 0, 1},
			[]string{"! ResourceClaimTemplate n1/gpu: refused: the API server refuses the update (spec: field is immutable)", "'kubectl delete resourceclaimtemplate -n n1 gpu'"}},
		{"PriorityClass added and removed", func(s *State) { s.PriorityClasses = map[string]PriorityClass{"q": NewPriorityClass("q", 1, nil)} }, nil, [5]int{1, 0, 0, 1, 0},
			[]string{"- PriorityClass p: destroy", "+ PriorityClass q: create"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			after := classified()
			tc.edit(after)
			files := append([]FileChange{{Path: "x", Kind: "changed"}}, tc.files...)
			p := Compare(classified(), after, files)
			s := p.Summary
			if got := [5]int{s.Create, s.Update, s.Replace, s.Destroy, s.Refused}; got != tc.counts {
				t.Errorf("counts %v, want %v", got, tc.counts)
			}
			text := string(p.Text("", nil))
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("text lacks %q:\n%s", w, text)
				}
			}
			if !strings.Contains(text, p.CountLine()) {
				t.Errorf("text lacks the count line %q", p.CountLine())
			}
		})
	}
}

// The drift list is Karpenter's: a NodePool's hashed fields drift every
// node, a requirement only the nodes it drops, a wider one none.
func TestKarpenterDrift(t *testing.T) {
	for _, tc := range []struct {
		fields       []string
		before, then []string
		want         string
	}{
		{[]string{"labels", "instanceTypes"}, []string{"a"}, []string{"b"}, NodePoolDrifted + " all"},
		{[]string{"instanceTypes"}, []string{"a", "b"}, []string{"a"}, RequirementsDrifted + " the nodes of instance type b"},
		{[]string{"instanceTypes"}, []string{"a"}, []string{"a", "b"}, ""},
	} {
		g := &GroupChange{Fields: tc.fields, Before: &Group{InstanceTypes: tc.before}, After: &Group{InstanceTypes: tc.then}}
		var got []string
		for _, d := range karpenterDrift(g) {
			got = append(got, d.Reason+" "+d.Nodes)
		}
		if w := slices.DeleteFunc([]string{tc.want}, func(s string) bool { return s == "" }); !slices.Equal(got, w) {
			t.Errorf("%v %v → %v: drift %q, want %q", tc.fields, tc.before, tc.then, got, w)
		}
	}
}

// A provisioner that can change everything in place (Fixed nil) gets an
// update where EKS's managed node groups get a replacement.
func TestClassifyNothingFixed(t *testing.T) {
	before, after := classified(), classified()
	before.Groups[0].Fixed, after.Groups[0].Fixed = nil, nil
	after.Groups[0].InstanceTypes = []string{"g6.xlarge"}
	if s := Compare(before, after, files).Summary; s.Replace != 0 || s.Update != 1 {
		t.Errorf("summary %+v, want one update and no replacement", s)
	}
}

// A name the API server would not accept, from a committed tree a pull
// request chose, gets no command a reviewer might paste.
func TestKubectlOnlyForValidNames(t *testing.T) {
	for _, tc := range []struct{ ns, name, want string }{
		{"", "p", " ('kubectl delete priorityclass p', then sync)"},
		{"n1", "gpu", " ('kubectl delete priorityclass -n n1 gpu', then sync)"},
		{"", "p; rm -rf ~", ""},
		{"n1 $(x)", "gpu", ""},
	} {
		if got := kubectl("priorityclass", tc.ns, tc.name); got != tc.want {
			t.Errorf("kubectl(%q, %q) = %q, want %q", tc.ns, tc.name, got, tc.want)
		}
	}
}
