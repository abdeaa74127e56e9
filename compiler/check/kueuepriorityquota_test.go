package check

import (
	"testing"

	"github.com/gpufleet/gpufleet/compiler/check/internal/checktest"
)

// A quota scoped to a queued class's priority, below what its ClusterQueue
// may admit, is warned of; Kueue does not see it.
func TestKueuePriorityQuota(t *testing.T) {
	checkQuotas(t, KueuePriorityQuota, IDKueuePriorityQuota, []quotaCase{
		{"priority quota of a queued class warns", []string{checktest.ClusterQueue("a", "", `nominalQuota: "8"`)},
			[]string{rq("ns1", "gpufleet", `requests.nvidia.com/gpu: "8"`, ""), rq("ns1", "gpufleet-batch", `requests.nvidia.com/gpu: "4"`, "batch")},
			[]string{"warning: ClusterQueue a may admit up to 8 nvidia.com/gpu of class train (priority batch), but ResourceQuota gpufleet-batch in namespace ns1 allows 4 requests.nvidia.com/gpu at that priority"}},
		{"priority quota of another priority", []string{checktest.ClusterQueue("a", "", `nominalQuota: "8"`)},
			[]string{rq("ns1", "gpufleet-dev", `requests.nvidia.com/gpu: "1"`, "dev")}, nil},
		{"an unscoped quota is KueueResourceQuota's", []string{checktest.ClusterQueue("a", "", `nominalQuota: "8"`)},
			[]string{rq("ns1", "gpufleet", `requests.nvidia.com/gpu: "6"`, "")}, nil},
		{"a short unscoped quota first hides the namespace's scoped ones", []string{checktest.ClusterQueue("a", "", `nominalQuota: "8"`)},
			[]string{rq("ns1", "gpufleet", `requests.nvidia.com/gpu: "6"`, ""), rq("ns1", "gpufleet-batch", `requests.nvidia.com/gpu: "4"`, "batch")}, nil},
	})
}
