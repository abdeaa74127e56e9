package eks_test

import (
	"testing"

	"github.com/gpufleet/gpufleet/internal/testrender"
)

func renderedFleets(t *testing.T) map[string]testrender.Fleet { return testrender.Examples(t) }

func renderFleet(t *testing.T, path string) testrender.Fleet { return testrender.Render(t, path) }
