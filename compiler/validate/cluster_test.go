package validate_test

import (
	"strings"
	"testing"
)

// The cloud identifiers: what AWS would refuse only when eksctl, Terraform
// or Karpenter first used them.
func TestClusterIdentifiers(t *testing.T) {
	for _, tc := range []struct {
		name, extra, want string
	}{
		{"malformed region", `region: "us-east-1" => region: "us_east"`, `region "us_east" is not an AWS region name`},
		{"zone outside the region", `zones: ["us-east-1a", "us-east-1b"] => zones: ["us-east-1a", "eu-west-1b"]`, `zone "eu-west-1b" is not in region us-east-1`},
		{"zone without a letter", `zones: ["us-east-1a", "us-east-1b"] => zones: ["us-east-1a", "us-east-1"]`, `zone "us-east-1" is not in region us-east-1`},
		{"zone of another numbered region", `zones: ["us-east-1a", "us-east-1b"] => zones: ["us-east-1a", "us-east-12a"]`, `zone "us-east-12a" is not in region us-east-1`},
		{"version too old", `version: "1.36" => version: "1.22"`, `Kubernetes version 1.22 is not one EKS supports (1.30 to 1.36)`},
		{"version from the future", `version: "1.36" => version: "1.99"`, `Kubernetes version 1.99 is not one EKS supports`},
		{"role too long", `cluster: karpenter: role: "` + strings.Repeat("r", 65) + `"` + "\n" + `pools: k: {instanceTypes: ["m7i.large"], provisioner: "karpenter", size: {min: 0, max: 1}}`, `is not an IAM role name`},
		{"default role too long", `size: {min: 0, max: 2}} => provisioner: "karpenter", size: {min: 0, max: 2}}` + "\n" + `name: "c" => name: "` + strings.Repeat("c", 50) + `"`, `Karpenter's node role "KarpenterNodeRole-cccc`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := check(t, tc.extra)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
	// Accepted: GovCloud and China regions, Local Zones, the supported
	// versions, a long cluster name without Karpenter.
	for _, extra := range []string{
		`region: "us-east-1", version: "1.36", zones: ["us-east-1a", "us-east-1b"] => region: "us-gov-west-1", version: "1.30", zones: ["us-gov-west-1a", "us-gov-west-1b"]`,
		`region: "us-east-1", version: "1.36", zones: ["us-east-1a", "us-east-1b"] => region: "cn-north-1", version: "1.36", zones: ["cn-north-1a", "cn-north-1b"]`,
		`zones: ["us-east-1a", "us-east-1b"] => zones: ["us-east-1a", "us-east-1-bos-1a"]`,
		`name: "c" => name: "` + strings.Repeat("c", 60) + `"`,
	} {
		if err := check(t, extra); err != nil {
			t.Errorf("%s: rejected: %v", extra, err)
		}
	}
}
