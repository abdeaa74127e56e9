package load

import (
	"fmt"
	"os"
	"unicode/utf8"

	cueerrors "cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/token"
)

// textFile reads a .cue file (its size already bounded) and checks it is
// text.
func textFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return text(path, data)
}

// text rejects a .cue file that is not text before CUE's scanner sees it.
// The scanner reports an error for every illegal byte, and CUE gathers
// errors in time quadratic in their number: half a MiB of random bytes took
// minutes. A spec is UTF-8 text: tabs, newlines and carriage returns are
// its only control characters, and a byte order mark may only open it.
func text(name string, data []byte) error {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		var what string
		switch {
		case r == utf8.RuneError && size == 1:
			what = fmt.Sprintf("invalid UTF-8 byte %#02x", data[i])
		case r == 0xFEFF && i > 0:
			what = "byte order mark after the start"
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r', r == 0x7f:
			what = fmt.Sprintf("control character %U", r)
		}
		if what != "" {
			f := token.NewFile(name, -1, len(data))
			f.SetLinesForContent(data)
			return cueerrors.Newf(f.Pos(i, token.NoRelPos), "%s: a spec must be UTF-8 text", what)
		}
		i += size
	}
	if err := loneCR(name, data); err != nil {
		return err
	}
	return longDigits(name, data)
}
