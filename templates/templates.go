// Package templates holds the skeleton workloads that a class's example is
// built from, and that tests apply each class's kustomize Component to.
package templates

import (
	"embed"
	"fmt"
	"strings"
)

//go:embed *.yaml
var fs embed.FS

// ForKind returns the skeleton for Deployment, StatefulSet or Job.
func ForKind(kind string) ([]byte, error) {
	b, err := fs.ReadFile(strings.ToLower(kind) + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("no workload template for kind %q", kind)
	}
	return b, nil
}
