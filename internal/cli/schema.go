package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/gpufleet/gpufleet/schema"
)

func newSchemaCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "schema",
		Short: "Print the embedded CUE schema every spec is unified with",
		Long: `Schema prints the CUE definitions that every spec is checked against.
A CUE spec may also import them as "` + schema.ImportPath + `".`,
		Example: `  gpufleet schema
  gpufleet schema > fleet-schema.cue`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			for _, f := range schema.Files() {
				if _, err := fmt.Fprintf(stdout, "%s", f.Data); err != nil {
					return err
				}
			}
			return nil
		},
	}
}
