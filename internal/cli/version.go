package cli

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Version is set with -ldflags "-X github.com/gpufleet/gpufleet/internal/cli.Version=v1.2.3";
// otherwise it comes from the module version go install recorded.
var Version = ""

func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

func newVersionCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print gpufleet's version",
		Example: `  gpufleet version`,
		Args:    noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			_, err := fmt.Fprintf(stdout, "gpufleet %s %s/%s %s\n", version(), runtime.GOOS, runtime.GOARCH, runtime.Version())
			return err
		},
	}
}
