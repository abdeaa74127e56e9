package kubesched

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/dynamic-resource-allocation/deviceclass/extendedresourcecache"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/quota/v1/evaluator/core"

	"github.com/gpufleet/gpufleet/compiler/check/sched"
)

// TestClaimQuota holds what QuotaFit charges a DRA class's pod
// (sched.Claims.ClaimQuota) to the API server's own quota evaluator for
// ResourceClaims (pkg/quota/v1/evaluator/core, claimEvaluator.Usage), on
// the claims the resourceclaim controller makes from the tree's templates,
// for every DRA class of the example and generated fleets, and on the claim
// kube-scheduler makes for a pod asking nvidia.com/gpu through the
// extended-resource bridge (annotated and owned by its pod, whose own
// charge of nvidia.com/gpu the evaluator takes off). The evaluator's
// extended-resource cache holds the fleet's DeviceClasses, the driver
// chart's among them, whose extendedResourceName charges a gpu.nvidia.com
// claim requests.nvidia.com/gpu. A checker that charges claims nothing, as
// QuotaFit did, is caught on every DRA class; one blind to the chart's
// extendedResourceName on every whole-GPU one.
func TestClaimQuota(t *testing.T) {
	var classes, bridged, blind, ernBlind, whole int
	for _, fc := range fleetCases(t) {
		res, cl := fc.compile(t)
		dra := draInputs(t, res, cl)
		ext := extendedresourcecache.NewExtendedResourceCache(klog.Background())
		for _, dc := range dra.Classes {
			ext.OnAdd(dc, true)
		}
		for i := range cl.Classes {
			c := &cl.Classes[i]
			claimsModel := claimsOf(c)
			if !claimsModel.Asks() {
				continue
			}
			pod := podsOf(c)[0]
			var claims []*resourcev1.ResourceClaim
			var err error
			if c.Info.Claims.Asks() {
				claims, err = makeClaims(pod, dra.Templates)
				if err != nil {
					t.Fatalf("%s: class %s: %v", fc.name, c.Name, err)
				}
				classes++
			} else {
				claims = []*resourcev1.ResourceClaim{bridgeClaim(pod, claimsModel)}
				bridged++
			}
			pods := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
			if err := pods.Add(pod); err != nil {
				t.Fatal(err)
			}
			owned := func(string, types.UID) ([]*resourcev1.ResourceClaim, error) { return claims, nil }
			eval := core.NewResourceClaimEvaluator(nil, ext, corev1listers.NewPodLister(pods), owned)
			want := map[v1.ResourceName]int64{}
			for _, claim := range claims {
				usage, err := eval.Usage(claim)
				if err != nil {
					t.Fatalf("%s: class %s: %v", fc.name, c.Name, err)
				}
				for r, q := range usage {
					want[r] += q.Value()
				}
			}
			if diff := cmp.Diff(want, claimsModel.ClaimQuota()); diff != "" {
				t.Errorf("%s: class %s: quota charged (-evaluator +checker):\n%s", fc.name, c.Name, diff)
			}
			if c.Info.Claims.Asks() && !cmp.Equal(want, (*sched.Claims)(nil).ClaimQuota()) {
				blind++
			}
			if _, charged := want["requests.nvidia.com/gpu"]; charged {
				whole++
				if !cmp.Equal(want, ernBlind0(claimsModel)) {
					ernBlind++
				}
			}
		}
	}
	t.Logf("%d DRA classes and %d bridged ones: the checker charges their claims as the quota evaluator does; a claims-blind QuotaFit disagrees on %d, one blind to extendedResourceName on %d of the %d charged requests.nvidia.com/gpu", classes, bridged, blind, ernBlind, whole)
	if classes == 0 || blind != classes || bridged == 0 || whole == 0 || ernBlind != whole {
		t.Errorf("%d DRA classes (a claims-blind model caught on %d), %d bridged, %d charged nvidia.com/gpu (an extendedResourceName-blind model caught on %d): want every one caught", classes, blind, bridged, whole, ernBlind)
	}
}

// bridgeClaim is the claim kube-scheduler's PreBind creates for the pod's
// extended resources (createExtendedResourceClaimInAPI), with the requests
// its Filter made: annotated and owned by the pod.
func bridgeClaim(pod *v1.Pod, model *sched.Claims) *resourcev1.ResourceClaim {
	yes := true
	return &resourcev1.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{
			Name: pod.Name + "-extended-resources-x", Namespace: pod.Namespace,
			Annotations:     map[string]string{resourcev1.ExtendedResourceClaimAnnotation: "true"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID, Controller: &yes}},
		},
		Spec: *model.Claims[0].Spec.DeepCopy(),
	}
}

// ernBlind0 is what the checker charged before it read the chart's
// extendedResourceName: the claims' devices and implicit names only.
func ernBlind0(c *sched.Claims) map[v1.ResourceName]int64 {
	out := map[v1.ResourceName]int64{}
	for k, n := range c.ClaimQuota() {
		if k != "requests.nvidia.com/gpu" {
			out[k] = n
		}
	}
	return out
}
