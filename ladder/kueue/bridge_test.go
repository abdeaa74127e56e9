package kueuediff

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/check/kueuemodel"
	"github.com/gpufleet/gpufleet/compiler/keys"
)

// TestDRAExtendedResourceAccounting holds what the checker's Kueue model
// counts of a queued class whose pods ask for nvidia.com/gpu in a fleet
// that installs the NVIDIA DRA driver (whose chart's gpu.nvidia.com
// DeviceClass names nvidia.com/gpu, so kube-scheduler may give them DRA
// devices: the extended-resource bridge) to Kueue v0.19.2's own
// extended-resource DRA accounting (KueueDRAIntegrationExtendedResource,
// beta and on: pkg/dra ResolveExtendedResourceQuota, with the DeviceClasses
// indexed by spec.extendedResourceName and the tree's deviceClassMappings),
// applied as workload.NewInfo applies it (the replaced extended resources
// removed, the mapped ones added). The mapping counts gpu.nvidia.com's
// devices as nvidia.com/gpu, so Kueue counts the pods' GPUs as the checker
// does; a model that took them out of the quota, as if DRA devices were
// not nvidia.com/gpu, disagrees on each.
func TestDRAExtendedResourceAccounting(t *testing.T) {
	ctx := context.Background()
	crds, dirs := draFleets(t)
	var compared, replaced, blind int
	for _, dir := range dirs {
		res, err := compiler.Compile([]string{dir})
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		cl, err := res.Cluster()
		if err != nil {
			t.Fatal(err)
		}
		var theirs *Kueue
		var ours *kueuemodel.Model
		for _, q := range compiler.KueueIntent(res.Fleet) {
			for _, class := range q.Classes {
				c := cl.Class(class)
				if c == nil || !c.Info.Bridge.Asks() {
					continue
				}
				if theirs == nil {
					if theirs, err = Load(ctx, crds, res.Tree); err != nil {
						t.Fatalf("%s: %v", dir, err)
					}
					if ours, err = kueuemodel.New(res.Typed()); err != nil {
						t.Fatal(err)
					}
				}
				w, err := ClassWorkload(ctx, res.Tree, class, q.Namespace)
				if err != nil {
					t.Fatalf("%s: %s: %v", dir, class, err)
				}
				add, rep, err := theirs.ExtendedRequests(ctx, q.Namespace, w.Name, w.PodSets)
				if err != nil {
					t.Fatalf("%s: class %s: Kueue's extended-resource accounting: %v", dir, class, err)
				}
				ps := w.PodSets[0].Name
				plain := kueuemodel.Request(c.AsWritten(), ours.LimitRanges[q.Namespace])
				want := plain.DeepCopy()
				for r := range rep[ps] {
					delete(want, r)
				}
				for r, n := range add[ps] {
					sum := want[r]
					sum.Add(n)
					want[r] = sum
				}
				if rep[ps].Has(keys.ResourceGPU) {
					replaced++
				}
				if mine := ours.ClassRequest(c, q.Namespace); !equality.Semantic.DeepEqual(mine, want) {
					t.Errorf("%s: class %s in %s: the checker counts %v, Kueue %v", dir, class, q.Namespace, mine, want)
				}
				outOfQuota := plain.DeepCopy()
				delete(outOfQuota, corev1.ResourceName(keys.ResourceGPU))
				if !equality.Semantic.DeepEqual(outOfQuota, want) {
					blind++
				}
				compared++
			}
		}
	}
	t.Logf("%d queued classes asking nvidia.com/gpu where the driver chart's DeviceClass names it: Kueue's extended-resource accounting resolves it to gpu.nvidia.com on %d and counts it as nvidia.com/gpu through the mapping, as the checker does; a model taking bridged GPUs out of the quota disagrees on %d", compared, replaced, blind)
	if compared == 0 || replaced != compared || blind != compared {
		t.Errorf("compared %d, resolved through the DeviceClass on %d, a model taking them out of the quota caught on %d: want some, all", compared, replaced, blind)
	}
}
