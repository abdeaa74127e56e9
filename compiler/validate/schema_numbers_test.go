package validate

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler/catalog"
	"github.com/gpufleet/gpufleet/compiler/cloud/aws"
	"github.com/gpufleet/gpufleet/compiler/derive"
	"github.com/gpufleet/gpufleet/compiler/live"
	"github.com/gpufleet/gpufleet/compiler/load"
	"github.com/gpufleet/gpufleet/schema"
)

// TestSchemaNumbers holds the numbers the schema's comments (and the docs
// that repeat them) document to the constants the code decides them
// with, so that a changed default cannot leave a stale comment behind (the
// schema once said aws-node requests 25m while the code took 50m off every
// node). Each fact's phrase must be found in each source it names, and
// every match must say what the code says.
func TestSchemaNumbers(t *testing.T) {
	sources := map[string]string{"schema": schemaComments(t)}
	for _, doc := range []string{"docs/spec.md", "docs/reliability.md", "docs/commands.md"} {
		b, err := os.ReadFile("../../" + doc)
		if err != nil {
			t.Fatal(err)
		}
		sources[doc] = string(b)
	}

	cat := aws.Catalog(nil)
	gpu := derive.Pool{GPU: &catalog.GPU{Count: 1, Product: "L4", MemoryGiB: 24}}
	cpu := derive.Pool{}
	var maxEFA int64
	for _, in := range cat {
		maxEFA = max(maxEFA, in.EFA)
	}

	for _, f := range []struct {
		name string
		// in maps a source to the phrase, whose groups are the numbers.
		in   map[string]string
		want []string
	}{
		{
			"aws-node's CPU request (aws.NodeAgents)",
			map[string]string{"schema": `aws-node \(the VPC CNI, (\S+) CPU\)`, "docs/spec.md": "`aws-node` (\\S+) CPU"},
			[]string{string(aws.NodeAgents["aws-node"].CPU)},
		},
		{
			"kube-proxy's CPU request (aws.NodeAgents)",
			map[string]string{"schema": `kube-proxy \((\S+) CPU\)`, "docs/spec.md": "`kube-proxy` (\\d+m)"},
			[]string{string(aws.NodeAgents["kube-proxy"].CPU)},
		},
		{
			"default node volumes, GPU and CPU pools (derive.Pool.VolumeGiB)",
			map[string]string{"schema": `defaults to (\d+) on GPU pools .*? and (\d+) on CPU pools`, "docs/spec.md": `(\d+) on GPU pools, (\d+) on CPU pools`},
			[]string{fmt.Sprint(gpu.VolumeGiB()), fmt.Sprint(cpu.VolumeGiB())},
		},
		{
			"MPS clients per GPU (maxMPSReplicas)",
			map[string]string{"schema": `MPS up to (\d+)`, "docs/spec.md": `MPS up to (\d+)`},
			[]string{fmt.Sprint(maxMPSReplicas)},
		},
		{
			"a Job's default backoffLimit (derive.DefaultBackoffLimit)",
			map[string]string{"schema": `backoffLimit \(default (\d+)\)`, "docs/spec.md": "`backoffLimit` \\| int \\| (\\d+) \\|"},
			[]string{fmt.Sprint(derive.DefaultBackoffLimit)},
		},
		{
			"the spot Jobs' grace period (aws.SpotNoticeSeconds)",
			map[string]string{"docs/spec.md": "`checkpointGracePeriodSeconds` \\| int \\| (\\d+) for Jobs that may run on spot"},
			[]string{fmt.Sprint(aws.SpotNoticeSeconds)},
		},
		{
			"the EKS versions a cluster may run (aws.MinMinor, aws.MaxMinor)",
			map[string]string{"docs/spec.md": `\(1\.(\d+) to 1\.(\d+)\)`, "docs/reliability.md": `\(1\.(\d+) to 1\.(\d+)\)`},
			[]string{fmt.Sprint(aws.MinMinor), fmt.Sprint(aws.MaxMinor)},
		},
		{
			"the largest spec file (load.MaxSpecBytes)",
			map[string]string{"docs/reliability.md": `at most (\d+) MiB`},
			[]string{fmt.Sprint(load.MaxSpecBytes >> 20)},
		},
		{
			"how long evaluation may take (load.EvalTimeout)",
			map[string]string{"docs/reliability.md": `stops with an error after (\d+) s`},
			[]string{fmt.Sprint(load.EvalTimeout.Seconds())},
		},
		{
			"the largest kubectl list (live.MaxBytes)",
			map[string]string{"docs/commands.md": `at most (\d+) MiB`},
			[]string{fmt.Sprint(live.MaxBytes >> 20)},
		},
		{
			"p5's GPUs (the catalog's p5.48xlarge)",
			map[string]string{"schema": `p5: (\d+) GPUs`},
			[]string{fmt.Sprint(cat["p5.48xlarge"].GPU.Count)},
		},
		{
			"a class's EFA interfaces at most the most any type takes (catalog EFA)",
			map[string]string{"schema": `efa\?: int & >=1 & <=(\d+)`},
			[]string{fmt.Sprint(maxEFA)},
		},
	} {
		for src, phrase := range f.in {
			re := regexp.MustCompile(phrase)
			ms := re.FindAllStringSubmatch(sources[src], -1)
			if len(ms) == 0 {
				t.Errorf("%s: %s does not say it (no match for %q)", f.name, src, phrase)
			}
			for _, m := range ms {
				if !slices.Equal(m[1:], f.want) {
					t.Errorf("%s: %s says %v (%q), the code %v", f.name, src, m[1:], m[0], f.want)
				}
			}
		}
	}
}

// TestSchemaEFATypes holds the schema's list of EFA-capable instance
// families to the catalog's: every family with a type that takes EFA, and
// no other.
func TestSchemaEFATypes(t *testing.T) {
	m := regexp.MustCompile(`only EFA-capable types \(([^)]*)\)`).FindStringSubmatch(schemaComments(t))
	if m == nil {
		t.Fatal("the schema lists no EFA-capable types")
	}
	documented := regexp.MustCompile(`\b[a-z]+[0-9]+[a-z]*(-[a-z]+[0-9]+)?\b`).FindAllString(m[1], -1)
	slices.Sort(documented)
	var families []string
	for name, in := range aws.Catalog(nil) {
		if fam, _, _ := strings.Cut(name, "."); in.EFA > 0 && !slices.Contains(families, fam) {
			families = append(families, fam)
		}
	}
	slices.Sort(families)
	if !slices.Equal(documented, families) {
		t.Errorf("the schema says the EFA-capable families are %v, the catalog %v", documented, families)
	}
}

// schemaComments is the embedded schema with each comment's lines joined
// into one line and the code kept, so that a phrase may wrap.
func schemaComments(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, f := range schema.Files() {
		for _, line := range strings.Split(string(f.Data), "\n") {
			line = strings.TrimSpace(line)
			if c, ok := strings.CutPrefix(line, "//"); ok {
				b.WriteString(strings.TrimSpace(c) + " ")
				continue
			}
			b.WriteString("\n" + line + "\n")
		}
	}
	if b.Len() == 0 {
		t.Fatal("no schema files")
	}
	return b.String()
}
