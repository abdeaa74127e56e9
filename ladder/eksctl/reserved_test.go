package eksctldiff

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	api "github.com/weaveworks/eksctl/pkg/apis/eksctl.io/v1alpha5"
	"github.com/weaveworks/eksctl/pkg/awsapi"
	"github.com/weaveworks/eksctl/pkg/cfn/builder"
	bootfakes "github.com/weaveworks/eksctl/pkg/nodebootstrap/fakes"
	vpcfakes "github.com/weaveworks/eksctl/pkg/vpc/fakes"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/nodegroup/eks"
	"github.com/gpufleet/gpufleet/compiler/nodes"
	"github.com/gpufleet/gpufleet/internal/testfleet"
)

// TestReservedLaunchTemplates builds, with eksctl's own CloudFormation
// builder (builder.NewManagedNodeGroup, AddAllResources: what `eksctl
// create nodegroup` renders), the stack of every managed node group of
// the example fleets, and holds the reservation in its launch template
// and its node group's capacity type to the one the checker read: a
// reserved group's launch template targets its reservation ID, and a
// block's carries market type capacity-block and makes the node group
// CAPACITY_BLOCK; a group without a reservation has neither.
//
// The mutant is the shape of eksctl #7906, #8320 and #8542: the ID key
// misspelled capacityReservationId. eksctl's strict check folds case and
// accepts it; its decode does not, and drops it; the stack's target is
// then empty, which this test must catch.
func TestReservedLaunchTemplates(t *testing.T) {
	if err := api.Register(); err != nil {
		t.Fatal(err)
	}
	names, paths, err := testfleet.Examples("../..")
	if err != nil {
		t.Fatal(err)
	}
	var groups, reserved, blocks, caught int
	for i, path := range paths {
		res, err := compiler.Compile([]string{path})
		if err != nil {
			t.Fatalf("%s: %v", names[i], err)
		}
		raw := res.Tree[eks.EksctlPath]
		want, err := eks.Provisioner{}.NodeGroups(res.Typed())
		if err != nil {
			t.Fatal(err)
		}
		stacks, err := stacksOf(raw)
		if err != nil {
			t.Fatalf("%s: %v", names[i], err)
		}
		for j, s := range stacks {
			groups++
			if d := reservationDiffers(s, want[j].Reserved); d != "" {
				t.Errorf("%s: managed node group %s: %s", names[i], want[j].Names[0], d)
			}
			if len(want[j].Reserved) > 0 {
				reserved++
				if want[j].Reserved[0].Block {
					blocks++
				}
			}
		}
		// The mutant: every reserved group's ID key misspelled.
		if !strings.Contains(string(raw), "capacityReservationID:") {
			continue
		}
		mutant := strings.ReplaceAll(string(raw), "capacityReservationID:", "capacityReservationId:")
		stacks, err = stacksOf([]byte(mutant))
		if err != nil {
			t.Fatalf("%s: eksctl refused the misspelled key (%v): the silent drop this test guards against is gone; look again", names[i], err)
		}
		for j, s := range stacks {
			if len(want[j].Reserved) > 0 && reservationDiffers(s, want[j].Reserved) != "" {
				caught++
			}
		}
	}
	t.Logf("eksctl v0.230.0 CloudFormation builder: %d managed node groups' stacks built, %d reserved (%d Capacity Blocks) carrying their reservation in their own launch template; misspelled capacityReservationId caught in %d of %d", groups, reserved, blocks, caught, reserved)
	if reserved == 0 || blocks == 0 {
		t.Error("no reserved group, or no block, was judged")
	}
	if caught != reserved {
		t.Errorf("the misspelled key was caught in %d of %d reserved groups", caught, reserved)
	}
}

// stack is what the test reads of one group's rendered stack.
type stack struct {
	ReservationID, MarketType, CapacityType string
}

// stacksOf loads the file as eksctl does (load) and renders each managed
// node group's stack.
func stacksOf(raw []byte) ([]stack, error) {
	cfg, err := load(raw)
	if err != nil {
		return nil, err
	}
	var out []stack
	for _, ng := range cfg.ManagedNodeGroups {
		s, err := render(cfg, ng)
		if err != nil {
			return nil, fmt.Errorf("node group %s: %w", ng.Name, err)
		}
		out = append(out, s)
	}
	return out, nil
}

func render(cfg *api.ClusterConfig, ng *api.ManagedNodeGroup) (stack, error) {
	var s stack
	subnets := api.AZSubnetMapping{}
	for _, z := range cfg.AvailabilityZones {
		subnets[z] = api.AZSubnetSpec{ID: "subnet-" + z, AZ: z}
	}
	if cfg.VPC == nil {
		cfg.VPC = api.NewClusterVPC(false)
	}
	cfg.VPC.Subnets = &api.ClusterSubnets{Private: subnets, Public: subnets}
	// The user data is the node's bootstrap, not its launch: no call.
	boot := &bootfakes.FakeBootstrapper{}
	boot.UserDataReturns("", nil)
	set := builder.NewManagedNodeGroup(fakeEC2{zones: cfg.AvailabilityZones}, cfg, ng, nil, boot, false, new(vpcfakes.FakeImporter))
	if err := set.AddAllResources(context.Background()); err != nil {
		return s, err
	}
	b, err := set.RenderJSON()
	if err != nil {
		return s, err
	}
	var tpl struct {
		Resources map[string]struct {
			Properties struct {
				CapacityType       string
				LaunchTemplateData struct {
					CapacityReservationSpecification *struct {
						CapacityReservationTarget *struct{ CapacityReservationId string }
					}
					InstanceMarketOptions *struct{ MarketType string }
				}
			}
		}
	}
	if err := json.Unmarshal(b, &tpl); err != nil {
		return s, err
	}
	s.CapacityType = tpl.Resources[builder.ManagedNodeGroupResourceName].Properties.CapacityType
	lt := tpl.Resources["LaunchTemplate"].Properties.LaunchTemplateData
	if c := lt.CapacityReservationSpecification; c != nil && c.CapacityReservationTarget != nil {
		s.ReservationID = c.CapacityReservationTarget.CapacityReservationId
	}
	if lt.InstanceMarketOptions != nil {
		s.MarketType = lt.InstanceMarketOptions.MarketType
	}
	return s, nil
}

// reservationDiffers says how a group's stack differs from the
// reservation the checker read for it.
func reservationDiffers(s stack, rs []nodes.Reservation) string {
	want := stack{}
	if len(rs) > 0 {
		want.ReservationID = rs[0].Selector
		if rs[0].Block {
			want.MarketType, want.CapacityType = "capacity-block", "CAPACITY_BLOCK"
		}
	}
	if want.CapacityType == "" && s.CapacityType != "SPOT" {
		s.CapacityType = "" // ON_DEMAND is EKS's default: eksctl leaves it out
	} else if want.CapacityType == "" {
		want.CapacityType = s.CapacityType
	}
	if s != want {
		return fmt.Sprintf("eksctl's stack targets reservation %q, market type %q, capacity type %q; the checker read %+v", s.ReservationID, s.MarketType, s.CapacityType, want)
	}
	return ""
}

// fakeEC2 answers what eksctl's builder asks EC2 of a managed node group:
// the zones and where each type is offered (AssignSubnets), and an EFA
// type's network cards (buildNetworkInterfaces). Anything else panics on
// the nil interface, so a new call shows.
type fakeEC2 struct {
	awsapi.EC2
	zones []string
}

func (f fakeEC2) DescribeAvailabilityZones(context.Context, *ec2.DescribeAvailabilityZonesInput, ...func(*ec2.Options)) (*ec2.DescribeAvailabilityZonesOutput, error) {
	out := &ec2.DescribeAvailabilityZonesOutput{}
	for _, z := range f.zones {
		out.AvailabilityZones = append(out.AvailabilityZones, ec2types.AvailabilityZone{ZoneName: aws.String(z), ZoneType: aws.String("availability-zone")})
	}
	return out, nil
}

func (f fakeEC2) DescribeInstanceTypeOfferings(_ context.Context, in *ec2.DescribeInstanceTypeOfferingsInput, _ ...func(*ec2.Options)) (*ec2.DescribeInstanceTypeOfferingsOutput, error) {
	out := &ec2.DescribeInstanceTypeOfferingsOutput{}
	for _, flt := range in.Filters {
		if aws.ToString(flt.Name) != "instance-type" {
			continue
		}
		for _, it := range flt.Values {
			for _, z := range f.zones {
				out.InstanceTypeOfferings = append(out.InstanceTypeOfferings, ec2types.InstanceTypeOffering{InstanceType: ec2types.InstanceType(it), Location: aws.String(z), LocationType: ec2types.LocationTypeAvailabilityZone})
			}
		}
	}
	return out, nil
}

func (f fakeEC2) DescribeInstanceTypes(_ context.Context, in *ec2.DescribeInstanceTypesInput, _ ...func(*ec2.Options)) (*ec2.DescribeInstanceTypesOutput, error) {
	out := &ec2.DescribeInstanceTypesOutput{}
	for _, it := range in.InstanceTypes {
		out.InstanceTypes = append(out.InstanceTypes, ec2types.InstanceTypeInfo{InstanceType: it, NetworkInfo: &ec2types.NetworkInfo{MaximumNetworkCards: aws.Int32(32), EfaSupported: aws.Bool(true)}})
	}
	return out, nil
}
