package sched

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"

	"github.com/gpufleet/gpufleet/compiler/check/internal/sat"
)

// ClaimQuota is what the API server's quota admission charges a pod's
// ResourceClaims, as k8s.io/kubernetes v1.36 pkg/quota/v1/evaluator/core
// (resource_claims.go, claimEvaluator.Usage) counts it: per claim, each
// request's devices against "<class>.deviceclass.resource.k8s.io/devices"
// (ExactCount its count, All the allocation's worst case; of a
// firstAvailable list, the most each class may get), and one
// count/resourceclaims.resource.k8s.io. With DRAExtendedResource (beta and
// on from v1.36) each class's devices are charged again as its implicit
// extended resource, "requests.deviceclass.resource.kubernetes.io/<class>",
// and as the extended resource its spec.extendedResourceName names
// ("requests.nvidia.com/gpu" for the driver chart's gpu.nvidia.com), less
// what the pod is charged of it where the claim is the one kube-scheduler
// made for the pod's extended resources (addExtendedResourceQuota,
// getVerifiedPodUsage): a claim of a DRA class is charged
// requests.nvidia.com/gpu, the bridge's claim is not (its pod is). make
// test-kube-scheduler holds it to the evaluator on every DRA class's claims
// and every bridged class's (TestClaimQuota).
func (c *Claims) ClaimQuota() map[corev1.ResourceName]int64 {
	if !c.Asks() {
		return nil
	}
	out := map[corev1.ResourceName]int64{}
	for _, claim := range c.Claims {
		out[ClaimCount]++
		for _, r := range claim.Spec.Devices.Requests {
			switch {
			case len(r.FirstAvailable) > 0:
				most := map[corev1.ResourceName]int64{}
				for _, s := range r.FirstAvailable {
					k := deviceClassQuota(s.DeviceClassName)
					most[k] = max(most[k], devices(s.AllocationMode, s.Count))
				}
				for k, n := range most {
					out[k] = sat.Add(out[k], n)
				}
			case r.Exactly != nil:
				k := deviceClassQuota(r.Exactly.DeviceClassName)
				out[k] = sat.Add(out[k], devices(r.Exactly.AllocationMode, r.Exactly.Count))
			}
		}
	}
	extended := map[corev1.ResourceName]int64{}
	for k, n := range out {
		class, ok := strings.CutSuffix(string(k), corev1.ResourceClaimsPerClass)
		if !ok || class == "" {
			continue
		}
		extended[corev1.ResourceName(corev1.ResourceImplicitExtendedClaimsPerClass+class)] = n
		if dc, err := c.lister().Get(class); err == nil && dc.Spec.ExtendedResourceName != nil {
			extended[corev1.ResourceName(corev1.DefaultResourceRequestsPrefix+*dc.Spec.ExtendedResourceName)] = n
		}
	}
	if c.Extended != "" {
		// The pod's own charge of what it requests.
		extended[corev1.ResourceName(corev1.DefaultResourceRequestsPrefix+c.Extended)] -= c.Devices
	}
	for k, n := range extended {
		if n > 0 {
			out[k] = n
		}
	}
	return out
}

// ClaimCount is the quota on a namespace's ResourceClaims.
const ClaimCount corev1.ResourceName = "count/resourceclaims.resource.k8s.io"

func deviceClassQuota(class string) corev1.ResourceName {
	return corev1.ResourceName(class + corev1.ResourceClaimsPerClass)
}

// devices is what one request of mode and count is charged; an unknown
// mode is not charged, as the evaluator says of one after a downgrade.
func devices(mode resourcev1.DeviceAllocationMode, count int64) int64 {
	switch mode {
	case resourcev1.DeviceAllocationModeExactCount:
		return count
	case resourcev1.DeviceAllocationModeAll:
		return resourcev1.AllocationResultsMaxSize
	}
	return 0
}
