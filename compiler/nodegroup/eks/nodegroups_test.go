package eks_test

import (
	"encoding/json"
	"maps"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/nodegroup/eks"
	"github.com/gpufleet/gpufleet/compiler/nodes"
	"github.com/gpufleet/gpufleet/compiler/wire/eksctl"
	tfwire "github.com/gpufleet/gpufleet/compiler/wire/terraform"
)

// wantTags is every scale-from-zero tag a pool needs, computed here from
// the derived pool rather than by the renderer's own helper.
func wantTags(p derive.Pool) map[string]string {
	tags := map[string]string{}
	for k, v := range p.NodeLabels() {
		tags["k8s.io/cluster-autoscaler/node-template/label/"+k] = v
	}
	for _, t := range p.Taints {
		tags["k8s.io/cluster-autoscaler/node-template/taint/"+t.Key] = t.Value + ":" + string(t.Effect)
	}
	var gpus int64
	for _, in := range p.Instances {
		if in.GPU != nil && (gpus == 0 || in.GPU.Count < gpus) {
			gpus = in.GPU.Count
		}
	}
	const res = "k8s.io/cluster-autoscaler/node-template/resources/"
	// EFA interfaces per network card: p4d and p4de have 4 cards.
	if p.Spec.EFA {
		efa := map[string]string{"p4d": "4", "p4de": "4", "p5": "32", "p5e": "32", "p5en": "16"}
		family, _, _ := strings.Cut(p.Spec.InstanceTypes[0], ".")
		tags[res+"vpc.amazonaws.com/efa"] = efa[family]
	}
	switch {
	case gpus == 0:
	case p.Spec.MIG != "":
		// A MIG node has no whole GPUs, and 7, 3 or 2 slices per GPU of
		// the layout's profile ("all-1g.10gb": 7 of nvidia.com/mig-1g.10gb).
		profile := strings.TrimPrefix(p.Spec.MIG, "all-")
		per := map[string]int64{"1g": 7, "2g": 3, "3g": 2}[profile[:2]]
		tags[res+"nvidia.com/gpu"] = "0"
		tags[res+"nvidia.com/mig-"+profile] = strconv.FormatInt(gpus*per, 10)
	case p.Spec.Sharing != nil:
		tags[res+"nvidia.com/gpu"] = strconv.FormatInt(gpus*p.Spec.Sharing.Replicas, 10)
	default:
		tags[res+"nvidia.com/gpu"] = strconv.FormatInt(gpus, 10)
	}
	return tags
}

// TestNodeGroupsAgree proves, for every fleet, that both node-group files
// declare every label, taint and GPU of every pool, as scale-from-zero tags
// too, and that Terraform gets what eksctl gets. The placement checker reads
// only eksctl.yaml, so this is what extends its proof to Terraform users.
func TestNodeGroupsAgree(t *testing.T) {
	effects := map[string]string{"NoSchedule": "NO_SCHEDULE", "NoExecute": "NO_EXECUTE", "PreferNoSchedule": "PREFER_NO_SCHEDULE"}
	for name, f := range renderedFleets(t) {
		t.Run(name, func(t *testing.T) {
			var cfg eksctl.ClusterConfig
			if err := yaml.UnmarshalStrict(f.Tree[eks.EksctlPath], &cfg); err != nil {
				t.Fatal(err)
			}
			var tf struct {
				Groups map[string]tfwire.NodeGroup `json:"eks_managed_node_groups"`
				Tags   map[string]tfwire.ASGTag    `json:"eks_managed_node_group_asg_tags"`
				Zones  map[string][]string         `json:"eks_managed_node_group_zones"`
			}
			if err := json.Unmarshal(f.Tree[eks.TerraformPath], &tf); err != nil {
				t.Fatal(err)
			}
			var managed []derive.Pool
			for _, p := range f.D.Pools {
				if p.Spec.HasNodeGroup() {
					managed = append(managed, p)
				}
			}
			if len(tf.Groups) != len(cfg.ManagedNodeGroups) {
				t.Fatalf("%d eksctl node groups, %d Terraform node groups", len(cfg.ManagedNodeGroups), len(tf.Groups))
			}
			tfTags := map[string]map[string]string{}
			for k, tag := range tf.Tags {
				if k != tag.NodeGroup+"|"+tag.Key {
					t.Errorf("tag %q is keyed unlike its node group and key", k)
				}
				if tfTags[tag.NodeGroup] == nil {
					tfTags[tag.NodeGroup] = map[string]string{}
				}
				tfTags[tag.NodeGroup][tag.Key] = tag.Value
			}
			// A pool's groups, in order: itself, or one per zone with
			// zoneGroups, whose sizes add up to the pool's.
			i := 0
			for _, p := range managed {
				var names []string
				var min, max, desired int32
				for ; i < len(cfg.ManagedNodeGroups) && cfg.ManagedNodeGroups[i].Labels["gpufleet.dev/pool"] == p.Name; i++ {
					ng := cfg.ManagedNodeGroups[i]
					names = append(names, ng.Name)
					min, max, desired = min+ng.MinSize, max+ng.MaxSize, desired+ng.DesiredCapacity
				}
				wantNames := []string{p.Name}
				if p.Spec.ZoneGroups {
					wantNames = nil
					for _, z := range p.Zones {
						wantNames = append(wantNames, p.Name+"-"+z)
					}
				}
				if !cmp.Equal(names, wantNames) {
					t.Fatalf("%s: node groups %v, want %v", p.Name, names, wantNames)
				}
				if max != p.Spec.ManagedMax() || min != p.Spec.Size.Min || desired != p.Spec.Baseline() {
					t.Errorf("%s: node groups' sizes add up to min %d, max %d, desired %d; want %d, %d (a both pool's managed share), %d", p.Name, min, max, desired, p.Spec.Size.Min, p.Spec.ManagedMax(), p.Spec.Baseline())
				}
			}
			if i != len(cfg.ManagedNodeGroups) {
				t.Fatalf("eksctl node group %s belongs to no pool in order", cfg.ManagedNodeGroups[i].Name)
			}
			for _, ng := range cfg.ManagedNodeGroups {
				p := *f.D.Pool(ng.Labels["gpufleet.dev/pool"])
				g := tf.Groups[ng.Name]
				if len(ng.AvailabilityZones) > 1 && p.Spec.ZoneGroups {
					t.Errorf("%s: a group per zone spans %v", ng.Name, ng.AvailabilityZones)
				}
				want := wantTags(p)
				wantEksctl := maps.Clone(want)
				if p.Spec.IsReserved() {
					wantEksctl["gpufleet.dev/reserved"] = nodes.FormatReservations(p.Reservations())
				}
				if diff := cmp.Diff(wantEksctl, ng.Tags); diff != "" {
					t.Errorf("%s: eksctl scale-from-zero tags (-want +got):\n%s", p.Name, diff)
				}
				sameReservation(t, p, ng, g)
				if diff := cmp.Diff(want, tfTags[ng.Name]); diff != "" {
					t.Errorf("%s: Terraform ASG tags (-want +got):\n%s", p.Name, diff)
				}
				if !ng.PropagateASGTags {
					t.Errorf("%s: propagateASGTags is off: cluster-autoscaler reads the tags from the ASG", p.Name)
				}
				if diff := cmp.Diff(p.NodeLabels(), ng.Labels); diff != "" {
					t.Errorf("%s: eksctl labels (-want +got):\n%s", p.Name, diff)
				}
				if diff := cmp.Diff(p.NodeLabels(), g.Labels); diff != "" {
					t.Errorf("%s: Terraform labels (-want +got):\n%s", p.Name, diff)
				}
				if len(g.Taints) != len(p.Taints) || len(ng.Taints) != len(p.Taints) {
					t.Errorf("%s: %d taints, eksctl has %d, Terraform %d", p.Name, len(p.Taints), len(ng.Taints), len(g.Taints))
				}
				for _, taint := range p.Taints {
					got := g.Taints[taint.Key]
					if got.Key != taint.Key || got.Value != taint.Value || got.Effect != effects[string(taint.Effect)] {
						t.Errorf("%s: Terraform taint %s is %+v", p.Name, taint.ToString(), got)
					}
				}
				spot := g.CapacityType == "SPOT"
				block := g.CapacityType == "CAPACITY_BLOCK"
				if spot != ng.Spot || (g.CapacityType != "ON_DEMAND" && !spot && !block) {
					t.Errorf("%s: capacity_type %s, eksctl spot %v", p.Name, g.CapacityType, ng.Spot)
				}
				if g.MinSize != ng.MinSize || g.MaxSize != ng.MaxSize || g.DesiredSize != ng.DesiredCapacity {
					t.Errorf("%s: Terraform sizes %d/%d/%d, eksctl %d/%d/%d", p.Name, g.MinSize, g.DesiredSize, g.MaxSize, ng.MinSize, ng.DesiredCapacity, ng.MaxSize)
				}
				if g.DiskSize != ng.VolumeSize || g.EnableEFASupport != ng.EFAEnabled {
					t.Errorf("%s: Terraform disk %d EFA %v, eksctl %d %v", p.Name, g.DiskSize, g.EnableEFASupport, ng.VolumeSize, ng.EFAEnabled)
				}
				for _, bd := range g.BlockDeviceMappings {
					if bd.EBS.VolumeSize != ng.VolumeSize {
						t.Errorf("%s: block device %s is %d GiB, eksctl volumeSize %d", p.Name, bd.DeviceName, bd.EBS.VolumeSize, ng.VolumeSize)
					}
				}
				if !cmp.Equal(g.InstanceTypes, ng.InstanceTypes) || !cmp.Equal(tf.Zones[ng.Name], ng.AvailabilityZones) {
					t.Errorf("%s: Terraform types %v zones %v, eksctl %v %v", ng.Name, g.InstanceTypes, tf.Zones[ng.Name], ng.InstanceTypes, ng.AvailabilityZones)
				}
			}
		})
	}
}

// TestNodeGroupDefaults pins the choices the spec leaves to gpufleet.
func TestNodeGroupDefaults(t *testing.T) {
	var tf struct {
		Groups map[string]tfwire.NodeGroup `json:"eks_managed_node_groups"`
	}
	tr := renderedFleets(t)["nodegroups-test"].Tree
	if err := json.Unmarshal(tr[eks.TerraformPath], &tf); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]struct {
		ami, device string
		disk        int32
		efa         bool
	}{
		"a100-efa": {"BOTTLEROCKET_x86_64_NVIDIA", "/dev/xvdb", 500, true},
		"cpu":      {"BOTTLEROCKET_x86_64", "/dev/xvdb", 50, false},
		"l4":       {"AL2023_x86_64_NVIDIA", "/dev/xvda", 500, false},
	} {
		g := tf.Groups[name]
		var devices []string
		for _, bd := range g.BlockDeviceMappings {
			devices = append(devices, bd.DeviceName)
		}
		if g.AMIType != want.ami || g.DiskSize != want.disk || g.EnableEFASupport != want.efa || !cmp.Equal(devices, []string{want.device}) {
			t.Errorf("%s: ami %s disk %d efa %v devices %v; want %+v", name, g.AMIType, g.DiskSize, g.EnableEFASupport, devices, want)
		}
	}
	tf.Groups = nil
	platform := renderedFleets(t)["platform"].Tree
	if err := json.Unmarshal(platform[eks.TerraformPath], &tf); err != nil {
		t.Fatal(err)
	}
	if g := tf.Groups["general"]; g.AMIType != "AL2023_x86_64_STANDARD" || g.DiskSize != 100 {
		t.Errorf("general (CPU, defaults): ami %s disk %d; want AL2023_x86_64_STANDARD 100", g.AMIType, g.DiskSize)
	}
}

// sameReservation holds eksctl's and Terraform's group of a pool to the
// one reservation the spec gives it: the same ID in both launch
// templates, and for a Capacity Block the market type in both and
// CAPACITY_BLOCK in Terraform (eksctl derives it from the market type).
func sameReservation(t *testing.T, p derive.Pool, ng eksctl.ManagedNodeGroup, g tfwire.NodeGroup) {
	t.Helper()
	if !p.Spec.IsReserved() {
		if ng.CapacityReservation != nil || ng.InstanceMarketOptions != nil || g.CapacityReservationSpecification != nil || g.InstanceMarketOptions != nil || g.CapacityType == tfwire.CapacityBlock {
			t.Errorf("%s: a pool without reservations has a reservation or market type", p.Name)
		}
		return
	}
	r := p.Spec.Reserved[0]
	if ng.CapacityReservation == nil || ng.CapacityReservation.CapacityReservationTarget == nil || ng.CapacityReservation.CapacityReservationTarget.CapacityReservationID != r.ID {
		t.Errorf("%s: eksctl capacityReservation %+v, want target %s", p.Name, ng.CapacityReservation, r.ID)
	}
	if g.CapacityReservationSpecification == nil || g.CapacityReservationSpecification.CapacityReservationTarget.CapacityReservationID != r.ID {
		t.Errorf("%s: Terraform capacity_reservation_specification %+v, want target %s", p.Name, g.CapacityReservationSpecification, r.ID)
	}
	if g.UseCustomLaunchTemplate == nil || !*g.UseCustomLaunchTemplate {
		t.Errorf("%s: Terraform group without its own launch template drops the reservation", p.Name)
	}
	block := ng.InstanceMarketOptions != nil && ng.InstanceMarketOptions.MarketType == "capacity-block"
	tfBlock := g.InstanceMarketOptions != nil && g.InstanceMarketOptions.MarketType == "capacity-block" && g.CapacityType == tfwire.CapacityBlock
	if block != r.IsBlock() || tfBlock != r.IsBlock() {
		t.Errorf("%s: reservation %s is a block: %v; eksctl's market type says %v, Terraform's %v", p.Name, r.ID, r.IsBlock(), block, tfBlock)
	}
	if r.IsBlock() && (ng.DesiredCapacity != 0 || g.DesiredSize != 0 || len(ng.InstanceTypes) != 1) {
		t.Errorf("%s: a block's group starts at %d (Terraform %d) nodes of %v, want 0 of one type", p.Name, ng.DesiredCapacity, g.DesiredSize, ng.InstanceTypes)
	}
}
