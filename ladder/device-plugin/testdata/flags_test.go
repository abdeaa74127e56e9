// Compiled into the NVIDIA device plugin's main package with
// allocate_test.go.
package main

import (
	"os"
	"regexp"
	"testing"

	"github.com/urfave/cli/v2"
	pluginapi "k8s.io/kubelet/pkg/apis/deviceplugin/v1beta1"

	spec "github.com/NVIDIA/k8s-device-plugin/api/config/v1"
)

// mainFlags are the flags main() builds, by name, default and
// environment variable: main builds them inline, where a test cannot
// reach them. TestMainFlags holds this list to main.go.
func mainFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "mig-strategy", Value: spec.MigStrategyNone, EnvVars: []string{"MIG_STRATEGY"}},
		&cli.BoolFlag{Name: "fail-on-init-error", Value: true, EnvVars: []string{"FAIL_ON_INIT_ERROR"}},
		&cli.StringFlag{Name: "driver-root", Aliases: []string{"nvidia-driver-root"}, Value: "/", EnvVars: []string{"NVIDIA_DRIVER_ROOT"}},
		&cli.StringFlag{Name: "dev-root", Aliases: []string{"nvidia-dev-root"}, EnvVars: []string{"NVIDIA_DEV_ROOT"}},
		&cli.BoolFlag{Name: "pass-device-specs", Value: false, EnvVars: []string{"PASS_DEVICE_SPECS"}},
		&cli.StringSliceFlag{Name: "device-list-strategy", Value: cli.NewStringSlice(string(spec.DeviceListStrategyEnvVar)), EnvVars: []string{"DEVICE_LIST_STRATEGY"}},
		&cli.StringFlag{Name: "device-id-strategy", Value: spec.DeviceIDStrategyUUID, EnvVars: []string{"DEVICE_ID_STRATEGY"}},
		&cli.BoolFlag{Name: "gdrcopy-enabled", EnvVars: []string{"GDRCOPY_ENABLED"}},
		&cli.BoolFlag{Name: "gds-enabled", EnvVars: []string{"GDS_ENABLED"}},
		&cli.BoolFlag{Name: "mofed-enabled", EnvVars: []string{"MOFED_ENABLED"}},
		&cli.StringFlag{Name: "kubelet-socket", Value: pluginapi.KubeletSocket, EnvVars: []string{"KUBELET_SOCKET"}},
		&cli.StringFlag{Name: "config-file", EnvVars: []string{"CONFIG_FILE"}},
		&cli.StringFlag{Name: "cdi-annotation-prefix", Value: spec.DefaultCDIAnnotationPrefix, EnvVars: []string{"CDI_ANNOTATION_PREFIX"}},
		&cli.StringFlag{Name: "nvidia-cdi-hook-path", Aliases: []string{"nvidia-ctk-path"}, Value: spec.DefaultNvidiaCTKPath, EnvVars: []string{"NVIDIA_CDI_HOOK_PATH", "NVIDIA_CTK_PATH"}},
		&cli.StringFlag{Name: "driver-root-ctr-path", Aliases: []string{"container-driver-root"}, Value: spec.DefaultContainerDriverRoot, EnvVars: []string{"DRIVER_ROOT_CTR_PATH", "CONTAINER_DRIVER_ROOT"}},
		&cli.StringFlag{Name: "mps-root", EnvVars: []string{"MPS_ROOT"}},
		&cli.StringFlag{Name: "device-discovery-strategy", Value: "auto", EnvVars: []string{"DEVICE_DISCOVERY_STRATEGY"}},
		&cli.IntSliceFlag{Name: "imex-channel-ids", EnvVars: []string{"IMEX_CHANNEL_IDS"}},
		&cli.BoolFlag{Name: "imex-required", EnvVars: []string{"IMEX_REQUIRED"}},
	}
}

// TestMainFlags: main.go declares exactly these flags' names, in order.
func TestMainFlags(t *testing.T) {
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range regexp.MustCompile(`(?m)^\t\t\tName:\s+"([^"]+)"`).FindAllSubmatch(src, -1) {
		got = append(got, string(m[1]))
	}
	var want []string
	for _, f := range mainFlags() {
		want = append(want, f.Names()[0])
	}
	if len(got) != len(want) {
		t.Fatalf("main.go declares flags %q, the test %q", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("main.go declares flags %q, the test %q", got, want)
		}
	}
}
