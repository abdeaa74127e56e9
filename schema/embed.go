// Package schema embeds the CUE fleet schema that every spec is unified with.
package schema

import "embed"

// ImportPath is the CUE import path under which specs may import the schema,
// for example to reuse #Pool in their own definitions.
const ImportPath = "gpufleet.dev/schema"

//go:embed *.cue
var FS embed.FS

// Files returns the schema's file names and contents in a stable order.
func Files() []File {
	entries, err := FS.ReadDir(".")
	if err != nil {
		panic(err) // embedded at build time; cannot fail
	}
	var files []File
	for _, e := range entries {
		data, err := FS.ReadFile(e.Name())
		if err != nil {
			panic(err)
		}
		files = append(files, File{Name: e.Name(), Data: data})
	}
	return files
}

// File is one embedded schema file.
type File struct {
	Name string
	Data []byte
}
