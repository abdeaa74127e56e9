package cli

import (
	"fmt"
	"io"
	"path"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/keys"
	"github.com/gpufleet/gpufleet/compiler/tree"
	"github.com/gpufleet/gpufleet/internal/component"
)

// maxManifests bounds what render-class reads from stdin: a chart's
// rendered manifests, not a cluster's dump.
const maxManifests = 64 << 20

func newRenderClassCmd(stdout, stderr io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "render-class SPEC... CLASS",
		Short: "Give a class to the workloads of manifests on stdin (a Helm post-renderer)",
		Long: `Render-class reads Kubernetes manifests on stdin, such as a Helm chart's
rendered output, labels every workload of a kind the class patches
(Deployment, StatefulSet and Job, or the class's own ML kind) with the
class, applies the class's kustomize Component to them, and writes the
result to stdout: the edits its Component makes, as kustomize builds it. Other objects pass through. Helm runs it as a post-renderer.`,
		Example: `  helm template vllm ./chart | gpufleet render-class fleets/llm-serving llm-tp4
  helm install vllm ./chart --post-renderer ./render.sh  # render.sh: exec gpufleet render-class fleet llm-tp4`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) < 2 {
				return usageError(c, "want SPEC... CLASS")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			specs, class := args[:len(args)-1], args[len(args)-1]
			res, err := compile(newTextOutput(io.Discard, stderr), specs, compiler.Options{})
			if err != nil {
				return err
			}
			dc := res.Fleet.Class(class)
			if dc == nil {
				var names []string
				for _, c := range res.Fleet.Classes {
					names = append(names, c.Name)
				}
				return usageError(c, "no class %q in the fleet (classes: %v)", class, names)
			}
			in, err := io.ReadAll(io.LimitReader(c.InOrStdin(), maxManifests+1))
			if err != nil || len(in) > maxManifests {
				return &exitError{code: ExitInvalid, err: fmt.Errorf("gpufleet: stdin: %v", orTooBig(err))}
			}
			kinds := []string{keys.KindDeployment, keys.KindStatefulSet, keys.KindJob}
			if dc.Spec.HasRoles() {
				kinds = []string{dc.Spec.Kind}
			}
			out, err := renderClass(res.Tree, class, kinds, in)
			if err != nil {
				return &exitError{code: ExitInvalid, err: fmt.Errorf("gpufleet: render-class: %v", err)}
			}
			_, err = stdout.Write(out)
			return err
		},
	}
}

func orTooBig(err error) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("more than %d MiB of manifests", maxManifests>>20)
}

// renderClass labels the workloads of kinds in manifests with the class
// and applies the class's Component to them, as kustomize builds them.
func renderClass(tr map[string][]byte, class string, kinds []string, manifests []byte) ([]byte, error) {
	// Syntax first, so that an error names its document.
	for i, doc := range tree.Docs(manifests) {
		var v any
		if err := yaml.Unmarshal(doc, &v); err != nil {
			return nil, fmt.Errorf("document %d: %v", i+1, err)
		}
	}
	return component.Apply(tr, path.Join(tree.ClassesDir, class), manifests, kinds, keys.LabelClass, class)
}
