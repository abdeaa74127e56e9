// This file is compiled into nodeadm's own internal/kubelet package (the
// EKS AL2023 AMI's node agent), through the overlay scripts/
// upstream-overlay.sh writes: `make test-nodeadm` runs it. It is gpufleet's,
// under gpufleet's license; nothing of nodeadm is changed.
package kubelet

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/awslabs/amazon-eks-ami/nodeadm/internal/api"
	"github.com/awslabs/amazon-eks-ami/nodeadm/internal/system"
	"github.com/awslabs/amazon-eks-ami/nodeadm/internal/util"

	"github.com/gpufleet/gpufleet/ladder/nodeadm"
)

// TestGpufleetCatalog writes, for every built-in instance type, the
// kubelet configuration nodeadm writes on a managed node group's node of
// that type: its defaults, then withDefaultReservedResources, which reads
// the node's CPUs from /sys (here nodeadm's own fake file system, with
// the type's vCPUs online) and its ENIs from the instance table nodeadm
// embeds. The catalog's max pods, kube-reserved CPU and memory, and hard
// eviction threshold for memory must be what nodeadm configures.
func TestGpufleetCatalog(t *testing.T) {
	types := amidiff.Types()
	bad := 0
	for _, ty := range types {
		if _, ok := cachedInfo(ty.Name); !ok {
			// nodeadm would ask EC2, which a test cannot.
			t.Errorf("%s: nodeadm's instance table has no entry: its max pods cannot be judged", ty.Name)
			bad++
			continue
		}
		cfg := &api.NodeConfig{}
		cfg.Status.Instance.Type = ty.Name
		cfg.Status.Instance.Region = "us-east-1"
		ksc := defaultKubeletSubConfig()
		ksc.withDefaultReservedResources(cfg, cpus(ty.VCPU))
		got := fmt.Sprintf("maxPods %d, kube-reserved cpu %s memory %s, evictionHard memory.available %s",
			ksc.MaxPods, ksc.KubeReserved["cpu"], ksc.KubeReserved["memory"], ksc.EvictionHard["memory.available"])
		want := fmt.Sprintf("maxPods %d, kube-reserved cpu %dm memory %dMi, evictionHard memory.available %dMi",
			ty.MaxPods, ty.ReservedCPUMilli, ty.ReservedMemoryMi, ty.EvictionMemoryMi)
		if got != want {
			t.Errorf("%s (%d vCPU): nodeadm configures %s; the catalog says %s", ty.Name, ty.VCPU, got, want)
			bad++
		}
	}
	t.Logf("nodeadm (EKS AL2023 AMI): %d built-in instance types, %d disagreements", len(types), bad)
	if len(types) == 0 {
		t.Error("the catalog lists no type: nothing was judged")
	}
}

// cachedInfo is the type's entry in nodeadm's embedded instance table.
func cachedInfo(instanceType string) (util.InstanceInfo, bool) {
	for s := bufio.NewScanner(bytes.NewReader(cachedInstanceInfoBytes)); s.Scan(); {
		var in util.InstanceInfo
		if json.Unmarshal(s.Bytes(), &in) == nil && in.InstanceType == instanceType {
			return in, true
		}
	}
	return util.InstanceInfo{}, false
}

// cpus is a node's /sys with n CPUs in one NUMA node, all online.
func cpus(n int64) system.Resources {
	files := map[string]string{"/sys/devices/system/cpu/online": fmt.Sprintf("0-%d\n", n-1)}
	for i := range n {
		files[fmt.Sprintf("/sys/devices/system/node/node0/cpu%d", i)] = system.EmptyDirectoryMarker
		files[fmt.Sprintf("/sys/devices/system/cpu/cpu%d", i)] = system.EmptyDirectoryMarker
	}
	return system.NewResources(system.FakeFileSystem{Files: files})
}
