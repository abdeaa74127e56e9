package cli

import (
	"fmt"
	"io"
	"path"
	"slices"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/labels"
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
	var selector string
	cmd := &cobra.Command{
		Use:   "render-class SPEC... CLASS",
		Short: "Give a class to the workloads of manifests on stdin (a Helm post-renderer)",
		Long: `Render-class reads Kubernetes manifests on stdin, such as a Helm chart's
rendered output, labels every workload of a kind the class patches
(Deployment, StatefulSet and Job, or the class's own ML kind) with the
class, or those --selector matches, applies the class's kustomize
Component to them with kustomize's own code, and writes the result to
stdout. Other objects pass through. Helm runs it as a post-renderer.

A plain class's Component patches the container the class names
(container:); a chosen workload without it is refused, since the patch
would add a container with no image.`,
		Example: `  # vLLM's production-stack chart: only its serving engine takes the GPU class
  helm template vllm vllm/vllm-stack -f values.yaml |
    gpufleet render-class fleets/llm-serving llm-1gpu -l app.kubernetes.io/component=serving-engine

  # As Helm's post-renderer (render.sh: exec gpufleet render-class fleet llm-1gpu -l ...)
  helm install vllm vllm/vllm-stack --post-renderer ./render.sh`,
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
			w := component.Workloads{Kinds: []string{keys.KindDeployment, keys.KindStatefulSet, keys.KindJob}, Label: keys.LabelClass, Value: class}
			container := dc.Spec.Container
			if dc.Spec.HasRoles() {
				w.Kinds, container = []string{dc.Spec.Kind}, ""
			}
			if selector != "" {
				if w.Select, err = labels.Parse(selector); err != nil {
					return usageError(c, "--selector: %v", err)
				}
			}
			out, err := renderClass(res.Tree, class, container, w, in)
			if err != nil {
				return &exitError{code: ExitInvalid, err: fmt.Errorf("gpufleet: render-class: %v", err)}
			}
			_, err = stdout.Write(out)
			return err
		},
	}
	cmd.Flags().StringVarP(&selector, "selector", "l", "", "give the class only to the workloads whose labels match this selector (e.g. app=vllm,tier!=router)")
	return cmd
}

func orTooBig(err error) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("more than %d MiB of manifests", maxManifests>>20)
}

// renderClass gives the workloads w chooses the class's Component, as
// kustomize builds them; each must run the container the class patches
// (none to check for an ML kind, whose patch tests its roles itself).
func renderClass(tr map[string][]byte, class, container string, w component.Workloads, manifests []byte) ([]byte, error) {
	for i, doc := range tree.Docs(manifests) {
		var o workload
		if err := yaml.Unmarshal(doc, &o); err != nil {
			return nil, fmt.Errorf("document %d: %v", i+1, err)
		}
		if !slices.Contains(w.Kinds, o.Kind) || (w.Select != nil && !w.Select.Matches(labels.Set(o.Metadata.Labels))) {
			continue
		}
		if o.Kind == keys.KindTrainJob && o.Spec.Trainer == nil {
			// The class's patch gives the trainer its resources per node.
			return nil, fmt.Errorf("document %d: TrainJob %s has no spec.trainer, which class %s gives its resources per node: set its trainer (image, command, numNodes), or leave this TrainJob out with --selector", i+1, o.Metadata.Name, class)
		}
		if container == "" {
			continue
		}
		var names []string
		for _, c := range o.Spec.Template.Spec.Containers {
			names = append(names, c.Name)
		}
		if !slices.Contains(names, container) {
			return nil, fmt.Errorf("document %d: %s %s runs containers %v, not %q, which class %s patches: set the class's container: to one of them, or leave this workload out with --selector", i+1, o.Kind, o.Metadata.Name, names, container, class)
		}
	}
	return component.Apply(tr, path.Join(tree.ClassesDir, class), manifests, w)
}

// workload is what render-class reads of a manifest before kustomize
// does: enough to choose it and to find its containers.
type workload struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name   string            `json:"name"`
		Labels map[string]string `json:"labels"`
	} `json:"metadata"`
	Spec struct {
		Trainer  *struct{} `json:"trainer"`
		Template struct {
			Spec struct {
				Containers []struct {
					Name string `json:"name"`
				} `json:"containers"`
			} `json:"spec"`
		} `json:"template"`
	} `json:"spec"`
}
