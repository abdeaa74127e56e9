package testfleet

import (
	"fmt"
	"path/filepath"
)

// Examples are the example fleets under root's fleets/, by name and
// directory, sorted; none is an error, so that a differential never passes
// on nothing.
func Examples(root string) (names, dirs []string, err error) {
	dirs, err = filepath.Glob(filepath.Join(root, "fleets", "*"))
	if err != nil || len(dirs) == 0 {
		return nil, nil, fmt.Errorf("no example fleets under %s: %v", filepath.Join(root, "fleets"), err)
	}
	for _, d := range dirs {
		names = append(names, filepath.Base(d))
	}
	return names, dirs, nil
}
