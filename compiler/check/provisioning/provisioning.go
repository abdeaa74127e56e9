// Package provisioning holds the checks that restate what launches the
// nodes a pool scales to: Karpenter, for Karpenter pools (KarpenterLaunch,
// KarpenterDRA and KarpenterUnpriced, which make test-karpenter holds to
// Karpenter's own scheduler, chart and prices), and cluster-autoscaler
// with the Auto Scaling group of a managed node group (MixedTypes,
// ZoneSpreadNodeGroup, AutoscalerGPUReady, AutoscalerDRAFromZero, whose
// rules are cited from cluster-autoscaler and EC2, which nothing here
// runs). Each reads the
// pools a class lands on, as kube-scheduler's filters give them, and asks
// whether the nodes that would hold its pods ever come.
package provisioning
