package queueing

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpufleet/gpufleet/compiler/check"
	"github.com/gpufleet/gpufleet/compiler/check/kueuemodel"
	"github.com/gpufleet/gpufleet/compiler/check/sched"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/wire/kueue"
)

const layer3 = "topology.k8s.aws/network-node-layer-3"

// tasAdmission is a queue whose class c, a gang of pods pods annotated
// with annotations, Kueue admits to flavor "a" (TAS when topology is
// set), whose pool stands at standing nodes holding perNode pods each.
func tasAdmission(annotations map[string]string, pods int32, topology bool, standing int32, perNode int64, live []map[string]string) *check.Admission {
	c := &sched.Class{Name: "c", Kind: keys.KindJob, Gang: true, Pods: pods,
		Pod: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Annotations: annotations}}}
	cell := sched.Cell{Class: "c", Pool: "a", Fits: true, Zones: []sched.ZoneCapacity{{Zone: "z", Nodes: 8, PodsPerNode: perNode}}}
	pool := sched.Pool{Name: "a", Zones: []string{"z"}, MaxNodes: 8, Standing: standing}
	if live != nil {
		pool.Live, pool.Standing, cell.Zones = true, int32(len(live)), nil
		for i, labels := range live {
			pool.Nodes = append(pool.Nodes, sched.Node{Node: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n" + string(rune('0'+i)), Labels: labels}}})
			cell.Zones = append(cell.Zones, sched.ZoneCapacity{Zone: "z", Nodes: 1, PodsPerNode: perNode})
		}
	}
	name := "network-3-layers"
	flavor := kueue.ResourceFlavorSpec{}
	if topology {
		flavor.TopologyName = &name
	}
	m := &kueuemodel.Model{
		Flavors:    map[string]kueue.ResourceFlavorSpec{"a": flavor},
		Topologies: map[string][]string{name: {"topology.k8s.aws/network-node-layer-1", "topology.k8s.aws/network-node-layer-2", layer3, keys.LabelHostname}},
	}
	r := &check.Report{Pools: []string{"a"}, Classes: []string{"c"}, Rows: []sched.Row{*sched.NewRow([]sched.Cell{cell})}}
	return &check.Admission{Queue: kueuemodel.Queue{Tenant: "t", ClusterQueue: "t"}, Model: m, Report: r, Pools: []sched.Pool{pool},
		Classes: []check.Queued{{Class: c, Pods: pods, Assignment: kueuemodel.Assignment{
			Flavors: map[corev1.ResourceName]string{"nvidia.com/gpu": "a"}, TAS: topology && len(annotations) > 0}}}}
}

// KueueTopology and KueueTopologyBound follow a workload Kueue places by
// topology onto its flavor's standing nodes: Kueue's TAS
// (FindTopologyAssignmentsForWorkload) places only on nodes that exist,
// a required level in one domain; offline a network level is a bound.
func TestKueueTopology(t *testing.T) {
	required := map[string]string{kueue.AnnotationRequiredTopology: layer3}
	onHost := map[string]string{kueue.AnnotationRequiredTopology: keys.LabelHostname}
	preferred := map[string]string{kueue.AnnotationPreferredTopology: layer3}
	sliced := func(key, level, slice string) map[string]string {
		return map[string]string{key: level, kueue.AnnotationSliceTopology: slice, kueue.AnnotationSliceSize: "2"}
	}
	slicedHost := sliced(kueue.AnnotationPreferredTopology, layer3, keys.LabelHostname)
	slicedL3 := sliced(kueue.AnnotationPreferredTopology, layer3, layer3)
	sliceAbove := sliced(kueue.AnnotationRequiredTopology, keys.LabelHostname, layer3)
	declared := map[string]map[string]int64{
		"required at a declared layer of 2 nodes": {layer3: 2},
		"required at a declared layer of 4 nodes": {layer3: 4},
		"slices of 2 per layer 3, declared pairs": {layer3: 2},
	}
	host := 0
	labels := func(l3 string) map[string]string {
		host++
		return map[string]string{"topology.k8s.aws/network-node-layer-1": "nn1", "topology.k8s.aws/network-node-layer-2": "nn2", layer3: l3, keys.LabelHostname: "h" + string(rune('0'+host))}
	}
	head := "tenant t: Kueue admits class c's gang of 4 pods to flavor a on quota, then places it by topology "
	for _, tc := range []struct {
		name        string
		annotations map[string]string
		topology    bool
		standing    int32
		perNode     int64
		live        []map[string]string
		errs, warns []string
	}{
		{"preferred fits the standing nodes", preferred, true, 4, 1, nil, nil, nil},
		{"one host holds the gang", onHost, true, 1, 4, nil, nil, nil},
		{"no flavor with a topology: KueueFlavor's", required, false, 0, 1, nil, nil, nil},
		{"a pool that stands at zero", preferred, true, 0, 1, nil,
			[]string{head + `(preferred ` + layer3 + `) on the 0 node(s) that exist: no topology domains at level: ` + layer3 + `, so it is never admitted; the pool stands at zero nodes, and Kueue keeps the Job suspended, so no pod is ever pending for an autoscaler to add one: give the pool a min size (cluster-autoscaler scales idle nodes down to it)`}, nil},
		{"too few standing nodes", preferred, true, 3, 1, nil,
			[]string{head + `(preferred ` + layer3 + `) on the 3 node(s) that exist: topology "network-3-layers" allows to fit only 3 out of 4 pod(s), so it is never admitted`}, nil},
		{"required on one host that holds 2", onHost, true, 4, 2, nil,
			[]string{head + `(required kubernetes.io/hostname) on the 4 node(s) that exist: topology "network-3-layers" allows to fit only 2 out of 4 pod(s), so it is never admitted`}, nil},
		{"required at a layer: a bound", required, true, 4, 1, nil, nil,
			[]string{head + `(required ` + layer3 + `) on the 4 node(s) that exist: its 4 pods fit only if EC2 puts enough of those nodes under one network node; with each undeclared level's domains as small as they can be, topology "network-3-layers" allows to fit only 1 out of 4 pod(s) (declare the pool's topologyDomains, or run check --nodes on the live labels, to judge it exactly)`}},
		// Declared domains make a network level exact: 2 nodes to a
		// layer-3 node hold 2 of the 4 pods, 4 hold them all.
		{"required at a declared layer of 2 nodes", required, true, 4, 1, nil,
			[]string{head + `(required ` + layer3 + `) on the 4 node(s) that exist: topology "network-3-layers" allows to fit only 2 out of 4 pod(s), so it is never admitted`}, nil},
		{"required at a declared layer of 4 nodes", required, true, 4, 1, nil, nil, nil},
		// Slices: whole slices only, counted in slices.
		{"slices of 2 per host, 1 pod per host", slicedHost, true, 4, 1, nil,
			[]string{head + `(preferred ` + layer3 + `, in slices of 2 within one kubernetes.io/hostname domain each) on the 4 node(s) that exist: topology "network-3-layers" doesn't allow to fit any of 2 slice(s), so it is never admitted`}, nil},
		{"slices of 2 per host, 3 pods per host", slicedHost, true, 2, 3, nil, nil, nil},
		{"slices of 2 per layer 3, undeclared: a bound", slicedL3, true, 4, 1, nil, nil,
			[]string{head + `(preferred ` + layer3 + `, in slices of 2 within one ` + layer3 + ` domain each) on the 4 node(s) that exist: its 4 pods, in slices of 2 within one ` + layer3 + ` domain each, fit only if EC2 puts enough of those nodes under one network node; with each undeclared level's domains as small as they can be, topology "network-3-layers" doesn't allow to fit any of 2 slice(s) (declare the pool's topologyDomains, or run check --nodes on the live labels, to judge it exactly)`}},
		{"slices of 2 per layer 3, declared pairs", slicedL3, true, 4, 1, nil, nil, nil},
		{"a slice above the gang's level", sliceAbove, true, 4, 1, nil,
			[]string{head + `(required kubernetes.io/hostname, in slices of 2 within one ` + layer3 + ` domain each) on the 4 node(s) that exist: podset slice topology ` + layer3 + ` is above the podset topology kubernetes.io/hostname, so it is never admitted`}, nil},
		{"live nodes under one network node", required, true, 0, 1, []map[string]string{labels("x"), labels("x"), labels("x"), labels("x")}, nil, nil},
		{"live nodes under two", required, true, 0, 1, []map[string]string{labels("x"), labels("x"), labels("y"), labels("x")},
			[]string{head + `(required ` + layer3 + `) on the 4 node(s) that exist: topology "network-3-layers" allows to fit only 3 out of 4 pod(s), so it is never admitted`}, nil},
		// kueue#6996: a node without a level's label is no node of the
		// flavor to Kueue's TAS.
		{"a live node missing a layer label", preferred, true, 0, 1, []map[string]string{labels("x"), labels("x"), labels("x"), {"topology.k8s.aws/network-node-layer-1": "nn1", keys.LabelHostname: "h9"}},
			[]string{head + `(preferred ` + layer3 + `) on the 3 node(s) that exist: topology "network-3-layers" allows to fit only 3 out of 4 pod(s), so it is never admitted`}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := tasAdmission(tc.annotations, 4, tc.topology, tc.standing, tc.perNode, tc.live)
			if d := declared[tc.name]; d != nil {
				a.Model.Domains = map[string]map[string]int64{"a": d}
			}
			for _, run := range []struct {
				id       check.ID
				severity string
				f        func(*check.Admission) []check.Finding
				want     []string
			}{{IDKueueTopology, check.Error, KueueTopology, tc.errs}, {IDKueueTopologyBound, check.Warning, KueueTopologyBound, tc.warns}} {
				var got []string
				for _, f := range run.f(a) {
					if f.Check != run.id || f.Severity != run.severity || f.Tenant != "t" || f.Class != "c" || f.Pool != "a" {
						t.Errorf("finding %+v", f)
					}
					got = append(got, f.Message)
				}
				if strings.Join(got, "\n") != strings.Join(run.want, "\n") {
					t.Errorf("%s:\n%s\nwant:\n%s", run.id, strings.Join(got, "\n"), strings.Join(run.want, "\n"))
				}
			}
		})
	}
}
