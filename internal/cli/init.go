package cli

import (
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
)

// starterFleet is the fleet 'gpufleet init' writes. TestInitStarterChecks
// and testdata/script/init.txtar prove it passes 'gpufleet check'.
//
//go:embed starter/fleet.cue
var starterFleet []byte

func newInitCmd(stdout, stderr io.Writer) *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Write a starter fleet spec to DIR/fleet.cue",
		Long: `Init scaffolds a starter fleet in DIR (default: the current directory):
DIR/fleet.cue, a small but realistic fleet with a CPU pool, an on-demand
GPU pool and a spot GPU pool, inference, training and web classes, two
tenants, and three priorities with a non-preempting development default.
It passes 'gpufleet check' as written; edit it to match your cluster.

DIR is created if it does not exist. An existing fleet.cue is never
overwritten unless --force is given.`,
		Example: `  # Start a fleet in ./fleet, check it, and compile it.
  gpufleet init fleet
  gpufleet check fleet
  gpufleet build fleet -o gitops/fleet

  # Start over.
  gpufleet init fleet --force`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageError(c, "takes at most one DIR, got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			path := filepath.Join(dir, "fleet.cue")
			if !force {
				if _, err := os.Lstat(path); err == nil {
					return usageError(c, "%s already exists; not overwriting it (use --force to replace it)", path)
				} else if !errors.Is(err, fs.ErrNotExist) {
					return &exitError{code: ExitInvalid, err: fmt.Errorf("%s: %v", c.CommandPath(), err)}
				}
			}
			if err := writeFileAtomic(path, starterFleet); err != nil {
				return &exitError{code: ExitInvalid, err: fmt.Errorf("%s: %v", c.CommandPath(), err)}
			}
			fmt.Fprintf(stdout, `wrote %s

Next steps:
  1. Edit %s: your cluster, pools, classes and tenants ('gpufleet schema' lists every field).
  2. gpufleet check %s
  3. gpufleet build %s -o gitops/fleet
Shell completion: see 'gpufleet completion --help'.
`, path, path, dir, dir)
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "overwrite an existing fleet.cue")
	return cmd
}

// writeFileAtomic writes data to path through a temporary file in the same
// directory, creating the directory if needed.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".fleet.cue.*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
