package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/gpufleet/gpufleet/compiler/check"
)

// ANSI colours for severity words in text output.
const (
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiReset  = "\x1b[0m"
)

// useColor reports whether text written to w may be coloured: only when w
// is a terminal, NO_COLOR is not set (https://no-color.org) and TERM is not
// "dumb". Tests write to buffers and pipes, so they never see colour.
func useColor(w io.Writer) bool {
	return colorAllowed(w, os.LookupEnv)
}

func colorAllowed(w io.Writer, lookup func(string) (string, bool)) bool {
	if _, set := lookup("NO_COLOR"); set {
		return false
	}
	if term, _ := lookup("TERM"); term == "dumb" {
		return false
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// severityWord is the severity, in red or yellow when color is on.
func severityWord(sev string, color bool) string {
	if !color {
		return sev
	}
	switch sev {
	case check.Error:
		return ansiRed + sev + ansiReset
	case check.Warning:
		return ansiYellow + sev + ansiReset
	}
	return sev
}

// findingLine is f.String() with its severity word coloured when color is on.
func findingLine(f check.Finding, color bool) string {
	s := ""
	if p := f.Pos.String(); p != "" {
		s = logLine(p) + ": "
	}
	return s + fmt.Sprintf("%s: %s: %s", severityWord(f.Severity, color), f.Check, logLine(f.Message))
}
