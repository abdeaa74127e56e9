package checktest

// KueueFlavor is a ResourceFlavor f for pool f, tainted as GPU pools are.
const KueueFlavor = `apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f}
spec:
  nodeLabels: {gpufleet.dev/pool: f}
  nodeTaints: [{key: nvidia.com/gpu, value: "true", effect: NoSchedule}]
`

// ClusterQueue is a ClusterQueue with one flavor f covering nvidia.com/gpu.
func ClusterQueue(name, cohort, quota string) string {
	return "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: " + name + "}\nspec:\n  cohortName: \"" + cohort + "\"\n  namespaceSelector: {}\n  queueingStrategy: BestEffortFIFO\n  resourceGroups:\n  - coveredResources: [nvidia.com/gpu]\n    flavors:\n    - name: f\n      resources: [{name: nvidia.com/gpu, " + quota + "}]\n"
}
