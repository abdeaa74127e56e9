package compiler_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gpufleet/gpufleet/compiler"
	"github.com/gpufleet/gpufleet/compiler/diag"
	"github.com/gpufleet/gpufleet/internal/testfleet"
)

// TestSchedulerProfileErrors checks that a misused schedulerProfile is a
// spec error at the line of the offending field.
func TestSchedulerProfileErrors(t *testing.T) {
	const base = `package fleet
cluster: {provider: "eks", name: "c", region: "us-east-1", version: "1.36", zones: ["us-east-1a", "us-east-1b"]}
priorities: p: value: 1
pools: cpu: {instanceTypes: ["m7i.large"], size: {min: 0, max: 2}}
tenants: t: {namespaces: ["t"], classes: ["web"]}
classes: web: {
	priority: "p"
`
	for _, tc := range []struct {
		name, class, path, want string
		line                    int
	}{
		{"both set", "\tschedulerName: \"volcano\"\n\tschedulerProfile: \"binpack\"\n", "classes.web.schedulerProfile",
			`schedulerProfile and schedulerName are mutually exclusive: profile "binpack" sets schedulerName "gpufleet-binpack"`, 9},
		{"profile's name by hand", "\tschedulerName: \"gpufleet-spread\"\n", "classes.web.schedulerName",
			`scheduler name "gpufleet-spread" is gpufleet's spread profile: set schedulerProfile: "spread" instead`, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := testfleet.Write(t, base+tc.class+"}\n")
			_, err := compiler.Compile([]string{f})
			var list diag.List
			if !errors.As(err, &list) || len(list) != 1 {
				t.Fatalf("want one diagnostic, got %v", err)
			}
			d := list[0]
			if d.Path != tc.path || !strings.Contains(d.Msg, tc.want) || d.Pos.Line != tc.line || d.Pos.Column == 0 {
				t.Errorf("got %s (line %d); want %s at line %d: %s", d, d.Pos.Line, tc.path, tc.line, tc.want)
			}
		})
	}
	t.Run("unknown profile", func(t *testing.T) {
		f := testfleet.Write(t, base+"\tschedulerProfile: \"pack\"\n}\n")
		_, err := compiler.Compile([]string{f})
		if err == nil || !strings.Contains(err.Error(), "fleet.cue:8:") || !strings.Contains(err.Error(), "schedulerProfile") {
			t.Fatalf("got %v; want a schema error at fleet.cue:8 naming schedulerProfile", err)
		}
	})
}
