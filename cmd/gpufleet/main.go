// Command gpufleet compiles a GPU fleet spec into a GitOps tree.
package main

import (
	"os"

	"github.com/gpufleet/gpufleet/internal/cli"
)

func main() { os.Exit(cli.Main()) }
