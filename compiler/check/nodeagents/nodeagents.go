// Package nodeagents holds the checks that restate what runs on each node
// beside the pods: the kubelet and the DaemonSets whose device plugins it
// asks for devices. A node advertises its GPUs only where the NVIDIA
// device plugin runs (DevicePlugin), publishes its DRA devices only where
// the NVIDIA DRA driver's kubelet plugin runs (DRAPlugin), and its EFA
// interfaces only where eksctl's EFA device plugin runs
// (EFADevicePlugin); the device plugin then allocates, or refuses, what
// each container asks once kube-scheduler binds the pod
// (DevicePluginAllocate). The DaemonSets' pods are placed with
// kube-scheduler's filters (compiler/check/readback marks each pool they
// do not reach); make e2e runs the real charts and DaemonSet controller,
// and make test-device-plugin the device plugin's own Allocate.
package nodeagents
