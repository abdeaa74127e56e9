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
