package encode

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// decoded is what parseJSON replaces: encoding/json's decoder with
// UseNumber, then yamlNumbers.
func decoded(b []byte) (any, error) {
	if !json.Valid(b) {
		return nil, errors.New("invalid JSON")
	}
	var m any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	return yamlNumbers(m), nil
}

var jsonCases = []string{
	`{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `1`, `-12`, `1.5`, `1e3`, `1E-3`, `-0.0e+0`,
	`9223372036854775807`, `9223372036854775808`, `18446744073709551616`, `1e400`,
	`""`, `"a b:c"`, `"\u003cx\u003e \"q\" \\ \/ \n\t"`, `"\ud83d\ude00"`, `"\ud800"`, "\"\xff\"", `"é"`,
	`{"a":{"b":[1,{"c":null}],"d":""},"e":[],"f":{}}`,
	` { "a" : [ 1 , 2 ] } `, `{"a":1,"a":2}`,
	// Malformed: both must refuse.
	`{`, `[1,]`, `{"a"}`, `{"a":}`, `01`, `1.`, `1e`, `-`, `"abc`, "\"a\x01\"", `tru`, `{}x`, `[1 2]`, `"\`,
}

// TestParseJSONMatchesDecoder holds parseJSON to encoding/json on every
// case above: the same value where the decoder takes the input, an error
// where it refuses. TestMarshalMatchesSigsYAML holds the whole encoding,
// parseJSON included, to sigs.k8s.io/yaml on every document of the example
// fleets and a generated one.
func TestParseJSONMatchesDecoder(t *testing.T) {
	inputs := append([]string{}, jsonCases...)
	inputs = append(inputs, `[`+strings.Repeat(`[`, maxDepth+5)+strings.Repeat(`]`, maxDepth+5)+`]`)
	for _, in := range inputs {
		sameAsDecoder(t, []byte(in))
	}
}

func sameAsDecoder(t *testing.T, in []byte) {
	t.Helper()
	want, werr := decoded(in)
	got, gerr := parseJSON(in)
	switch {
	case werr != nil && gerr == nil:
		t.Errorf("%.80q: parseJSON took it, encoding/json refused: %v", in, werr)
	case werr == nil && gerr != nil:
		t.Errorf("%.80q: parseJSON refused: %v", in, gerr)
	case werr == nil && !reflect.DeepEqual(got, want):
		t.Errorf("%.80q: parseJSON %#v, encoding/json %#v", in, got, want)
	}
}

func FuzzParseJSON(f *testing.F) {
	for _, c := range jsonCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, in []byte) { sameAsDecoder(t, in) })
}
