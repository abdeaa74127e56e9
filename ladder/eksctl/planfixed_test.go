package eksctldiff

import (
	"reflect"
	"slices"
	"testing"

	awseks "github.com/aws/aws-sdk-go-v2/service/eks"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/internal/testfleet"
)

// The fields of EKS's own API, from the SDK eksctl v0.230.0 calls
// (aws-sdk-go-v2/service/eks): what CreateNodegroup takes, and what
// UpdateNodegroupConfig (eksctl's update and scale paths,
// pkg/actions/nodegroup/update.go and scale.go) and UpdateNodegroupVersion
// can change afterwards.
func inputFields(v any) []string {
	t := reflect.TypeOf(v)
	var out []string
	for i := range t.NumField() {
		if f := t.Field(i); f.IsExported() {
			out = append(out, f.Name)
		}
	}
	return out
}

// planToEKS names, for each field plan compares of a managed node group,
// the CreateNodegroup field that sets it.
var planToEKS = map[string]string{
	"instanceTypes": "InstanceTypes", "capacityType": "CapacityType", "zones": "Subnets", "amiFamily": "AmiType",
	"min": "ScalingConfig", "desired": "ScalingConfig", "max": "ScalingConfig", "labels": "Labels", "taints": "Taints",
}

// replaceListErrors is where a replace list (the fields plan replaces a
// managed node group for) disagrees with EKS's API: a field it replaces
// for that an update takes, or one it updates in place that no update
// takes.
func replaceListErrors(fixed []string) []string {
	create := inputFields(awseks.CreateNodegroupInput{})
	update := append(inputFields(awseks.UpdateNodegroupConfigInput{}), inputFields(awseks.UpdateNodegroupVersionInput{})...)
	var bad []string
	for field, api := range planToEKS {
		if !slices.Contains(create, api) {
			bad = append(bad, field+": CreateNodegroup has no "+api)
			continue
		}
		if replaced, updatable := slices.Contains(fixed, field), slices.Contains(update, api); replaced == updatable {
			bad = append(bad, field+" ("+api+"): plan replaces it "+map[bool]string{true: "though an update takes it", false: "never, though no update takes it"}[replaced])
		}
	}
	slices.Sort(bad)
	return bad
}

// plan replaces a managed node group exactly for the fields EKS's
// update APIs do not take: the provisioner's replace list, read back from
// each example fleet's eksctl file, held to the SDK's own input types;
// lists with a field dropped or one added are caught.
func TestPlanReplaceIsEKSs(t *testing.T) {
	names, paths, err := testfleet.Examples("../..")
	if err != nil {
		t.Fatal(err)
	}
	var fixed []string
	for i, p := range paths {
		res, err := compiler.Compile([]string{p})
		if err != nil {
			t.Fatalf("%s: %v", names[i], err)
		}
		for _, g := range res.Groups {
			if g.Fixed != nil {
				fixed = g.Fixed.Fields
			}
		}
	}
	if fixed == nil {
		t.Fatal("no managed node group in the examples")
	}
	if bad := replaceListErrors(fixed); len(bad) > 0 {
		t.Errorf("plan's replace list %v disagrees with EKS's API: %v", fixed, bad)
	}
	for _, bug := range [][]string{
		slices.DeleteFunc(slices.Clone(fixed), func(f string) bool { return f == "amiFamily" }),
		append(slices.Clone(fixed), "labels"),
		append(slices.Clone(fixed), "max"),
	} {
		if bad := replaceListErrors(bug); len(bad) == 0 {
			t.Errorf("the replace list %v went unnoticed", bug)
		} else {
			t.Logf("replace list %v caught: %v", bug, bad)
		}
	}
	t.Logf("plan replaces for %v; %d fields held to CreateNodegroup, UpdateNodegroupConfig and UpdateNodegroupVersion", fixed, len(planToEKS))
}
