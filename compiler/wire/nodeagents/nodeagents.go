// Package nodeagents is the tree's record of the DaemonSets that run a pod
// on every node (agents/daemonsets.yaml): the cluster installs them, not
// the tree, but the checker takes their requests and pod slots off every
// node before it places a class.
package nodeagents

import corev1 "k8s.io/api/core/v1"

// Path is the record's place in the tree.
const Path = "agents/daemonsets.yaml"

// File is the record.
type File struct {
	DaemonSets []DaemonSet `json:"daemonSets"`
}

// DaemonSet is one DaemonSet's pod as the scheduler counts it: its
// requests (the largest of the init containers' and the sum of the
// containers') and one pod slot.
type DaemonSet struct {
	Name     string              `json:"name"`
	Requests corev1.ResourceList `json:"requests,omitempty"`
}

// EKS's own DaemonSets, on every node of an EKS cluster: aws-node (the
// VPC CNI: 25m for its CNI container and 25m for the network policy agent
// its chart enables by default, as e2e renders the chart from
// github.com/aws/amazon-vpc-cni-k8s v1.20.4 and holds this to it) and
// kube-proxy (the EKS add-on's request, which no served module carries).
var EKS = map[string]map[corev1.ResourceName]string{
	"aws-node":   {corev1.ResourceCPU: "50m"},
	"kube-proxy": {corev1.ResourceCPU: "100m"},
}
