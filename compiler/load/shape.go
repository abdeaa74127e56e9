package load

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	cueerrors "cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/token"
)

// maxDigits bounds a run of digits in a spec: CUE parses a number literal
// in time quadratic in its length (4 million digits took 59 s), and no spec
// value needs a hundredth of this, a number or inside a string.
const maxDigits = 1000

// shapeErr is an error at offset i of a spec file.
func shapeErr(name string, data []byte, i int, format string, args ...any) error {
	f := token.NewFile(name, -1, len(data))
	f.SetLinesForContent(data)
	return cueerrors.Newf(f.Pos(i, token.NoRelPos), format, args...)
}

// longDigits refuses a run of more than maxDigits digits.
func longDigits(name string, data []byte) error {
	run := 0
	for i, c := range data {
		if c < '0' || c > '9' {
			run = 0
			continue
		}
		if run++; run > maxDigits {
			return shapeErr(name, data, i-maxDigits, "more than %d digits in a row: no spec value needs that many, and CUE parses a long number in quadratic time", maxDigits)
		}
	}
	return nil
}

// loneCR refuses a carriage return not followed by a line feed (old Mac
// line endings): CUE's scanner and its YAML decoder take such a file as one
// line, which CUE read as another spec and its YAML decoder crashed on.
func loneCR(name string, data []byte) error {
	for i := bytes.IndexByte(data, '\r'); i >= 0; {
		if i+1 == len(data) || data[i+1] != '\n' {
			return shapeErr(name, data, i, "a carriage return without a line feed: a spec's lines end in LF or CRLF (convert the file, for example with tr '\\r' '\\n')")
		}
		j := bytes.IndexByte(data[i+1:], '\r')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return nil
}

// oneDocument refuses YAML with a second document: CUE decodes a stream of
// documents as a list, and the schema's error then prints the whole spec.
// A document marker is "---" or "..." at the start of a line; the first
// "---", before any content, opens the one document.
func oneDocument(name string, data []byte) error {
	content := false
	off := 0
	for _, line := range strings.SplitAfter(string(data), "\n") {
		t := strings.TrimRight(line, "\r\n")
		marker := t == "---" || strings.HasPrefix(t, "--- ") || strings.HasPrefix(t, "---\t")
		switch {
		case marker && content, t == "..." && content && rest(data[off+len(line):]):
			return shapeErr(name, data, off, "a second YAML document: a spec file is one document (put each in its own file and pass them all)")
		case marker:
			content = strings.TrimSpace(t[3:]) != "" && !strings.HasPrefix(strings.TrimSpace(t[3:]), "#")
		case strings.TrimSpace(t) != "" && !strings.HasPrefix(strings.TrimSpace(t), "#") && !strings.HasPrefix(t, "%"):
			content = true
		}
		off += len(line)
	}
	return nil
}

// rest reports whether anything but blank lines and comments follows.
func rest(data []byte) bool {
	for _, line := range strings.Split(string(data), "\n") {
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
			return true
		}
	}
	return false
}

// colonName refuses a .cue file whose name holds a colon: CUE's loader
// reads what comes before it as a file type ("json: x.cue") and cannot
// load it under any spelling.
func colonName(path string) error {
	if base := filepath.Base(path); strings.Contains(base, ":") {
		return fmt.Errorf("a .cue file name may not contain ':': CUE's loader reads %q as a file type and a file name; rename the file", base)
	}
	return nil
}

// jsonBOM blanks a UTF-8 byte order mark opening a JSON spec, which RFC
// 8259 lets a parser ignore (PowerShell's Out-File writes one): spaces,
// so that every position stays where it was.
func jsonBOM(data []byte) []byte {
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		data = append([]byte("   "), data[3:]...)
	}
	return data
}
