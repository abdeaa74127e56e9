package nodediff

import (
	"bytes"
	"fmt"
	"maps"
	"slices"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpufleet/gpufleet/internal/upstream"
)

// ChartEnv renders Karpenter's own chart (charts/karpenter of the pinned
// karpenter-provider-aws, v1.15.1) with values, as `helm template` does,
// with settings.clusterName set as every install sets it (`--set
// settings.clusterName=...`), and returns its controller container's
// environment: what the deployed controller parses its options from.
func ChartEnv(values []byte, cluster string) (map[string]string, error) {
	dir, err := upstream.KarpenterAWS.File("charts/karpenter")
	if err != nil {
		return nil, err
	}
	ch, err := loader.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("load chart: %w", err)
	}
	vals, err := chartutil.ReadValues(values)
	if err != nil {
		return nil, err
	}
	settings, _ := vals["settings"].(map[string]any)
	if settings == nil {
		settings = map[string]any{}
		vals["settings"] = settings
	}
	settings["clusterName"] = cluster
	// What `helm template` does (action.Install, client-only): Helm's own
	// value coalescing and template engine. The action package itself
	// links kubectl, whose release lacks this module's k8s.io/api v0.37.
	opts := chartutil.ReleaseOptions{Name: "karpenter", Namespace: "kube-system", Revision: 1, IsInstall: true}
	top, err := chartutil.ToRenderValues(ch, vals, opts, chartutil.DefaultCapabilities)
	if err != nil {
		return nil, err
	}
	files, err := engine.Render(ch, top)
	if err != nil {
		return nil, fmt.Errorf("helm template %s: %w", ch.Name(), err)
	}
	var manifest []byte
	for _, name := range slices.Sorted(maps.Keys(files)) {
		manifest = append(manifest, "\n---\n"+files[name]...)
	}
	for _, doc := range bytes.Split(manifest, []byte("\n---")) {
		var d appsv1.Deployment
		if err := yaml.Unmarshal(doc, &d); err != nil || d.Kind != "Deployment" {
			continue
		}
		for _, c := range d.Spec.Template.Spec.Containers {
			if c.Name != "controller" {
				continue
			}
			env := map[string]string{}
			for _, e := range c.Env {
				env[e.Name] = e.Value
			}
			return env, nil
		}
	}
	return nil, fmt.Errorf("helm template %s: no Deployment with a controller container", ch.Name())
}

// ChartArgs are the flags that say what the chart's environment says of
// DRA (AWS_FEATURE_GATES and IGNORE_DRA_REQUESTS, which the controller
// reads as these flags' defaults): for Context, and for WithCoreOptions.
// The rest of the environment is left to Karpenter's own defaults, which
// every other cell of the rung is judged with.
func ChartArgs(env map[string]string) (aws, core []string, err error) {
	gates, ok := env["AWS_FEATURE_GATES"]
	ignore, ok2 := env["IGNORE_DRA_REQUESTS"]
	if !ok || !ok2 {
		return nil, nil, fmt.Errorf("the chart's controller sets no AWS_FEATURE_GATES or IGNORE_DRA_REQUESTS")
	}
	return []string{"--aws-feature-gates=" + gates}, []string{"--ignore-dra-requests=" + ignore}, nil
}
