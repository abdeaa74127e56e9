package fleetgen

import "fmt"

// Dense is a CUE spec of pools pools and classes classes that each land on
// every pool, each class listed by every one of tenants tenants: issue
// 51's 517-byte spec, which at 2,000 × 2,000 took check 128 s and 5.7 GB
// before the checker's density bound (compiler/bound.go) refused it.
func Dense(pools, classes, tenants int) []byte {
	return fmt.Appendf(nil, `package fleet

import "list"

cluster: {provider: "eks", name: "dense", region: "us-east-1", version: "1.36", zones: ["us-east-1a", "us-east-1b"]}
priorities: standard: value: 1000
pools: {for i in list.Range(0, %d, 1) {"p\(i)": {instanceTypes: ["m7i.large"], size: {min: 1, max: 3}}}}
classes: {for i in list.Range(0, %d, 1) {"c\(i)": {priority: "standard", kind: "Job", resources: {cpu: "100m", memory: "128Mi"}}}}
tenants: {for t in list.Range(0, %d, 1) {"t\(t)": {namespaces: ["t\(t)"], classes: [for i in list.Range(0, %d, 1) {"c\(i)"}]}}}
`, pools, classes, tenants, classes)
}
