package runnerlog

import (
	"reflect"
	"strings"
	"testing"
	"unicode"
)

// doSomething registers only "do-something", as the runner's
// LoggingCommandL0 tests (src/Test/L0/Worker/ActionCommandL0.cs) do.
func doSomething(name string) bool { return sameName(name, "do-something") }

// TestParse holds Parse to the runner's semantics: the cases of
// ActionCommandL0.cs's CommandParserTest and CommandParserV2Test, and what
// ActionCommand.TryParse and TryParseV2 do beyond them.
func TestParse(t *testing.T) {
	type props = map[string]string
	for _, tc := range []struct {
		line  string
		ok    bool
		form  Form
		props props
		data  string
	}{
		// CommandParserTest, the legacy form.
		{"##[do-something k1=v1;]msg", true, Legacy, props{"k1": "v1"}, "msg"},
		{"##[do-something]", true, Legacy, props{}, ""},
		{"##[do-something k1=%3B=%0D=%0A=%5D;]%3B-%0D-%0A-%5D", true, Legacy, props{"k1": ";=\r=\n=]"}, ";-\r-\n-]"},
		{"##[do-something k1=%253B=%250D=%250A=%255D;]%253B-%250D-%250A-%255D", true, Legacy, props{"k1": "%3B=%0D=%0A=%5D"}, "%3B-%0D-%0A-%5D"},
		{"##[do-something k1=;k2=;]", true, Legacy, props{}, ""},
		{">>>   ##[do-something k1=v1;]msg", true, Legacy, props{"k1": "v1"}, "msg"},
		// CommandParserV2Test.
		{"::do-something k1=v1,::msg", true, V2, props{"k1": "v1"}, "msg"},
		{"::do-something::", true, V2, props{}, ""},
		{"::do-something k1=;=%2C=%0D=%0A=]=%3A,::;-%0D-%0A-]-:-,", true, V2, props{"k1": ";=,=\r=\n=]=:"}, ";-\r-\n-]-:-,"},
		{"::do-something k1=;=%252C=%250D=%250A=]=%253A,::;-%250D-%250A-]-:-,", true, V2, props{"k1": ";=%2C=%0D=%0A=]=%3A"}, ";-%0D-%0A-]-:-,"},
		{"::do-something k1=,k2=,::", true, V2, props{}, ""},
		{"::do-something k1=v1::", true, V2, props{"k1": "v1"}, ""},
		{"   ::do-something k1=v1,::msg", true, V2, props{"k1": "v1"}, "msg"},
		{"   >>>   ::do-something k1=v1,::msg", false, 0, nil, ""},
		// TryParseV2: TrimStart trims every Char.IsWhiteSpace, not only
		// spaces and tabs.
		{"\u00a0\u2003\v\f::do-something::x", true, V2, props{}, "x"},
		{"\u3000::do-something::x", true, V2, props{}, "x"},
		// The name ends at the first space; an unregistered name is no
		// command, in either form; the name's case does not matter.
		{"::do-nothing::x", false, 0, nil, ""},
		{"::DO-Something::x", true, V2, props{}, "x"},
		{"##[Do-Something]x", true, Legacy, props{}, "x"},
		{"::do-something", false, 0, nil, ""},
		{"::do-something:x", false, 0, nil, ""},
		{"##[do-something", false, 0, nil, ""},
		{"x::do-something::y", false, 0, nil, ""},
		// TryParse looks at the first "##[" only.
		{"##[other] ##[do-something]x", false, 0, nil, ""},
		{"text ##[do-something]x ##[other]", true, Legacy, props{}, "x ##[other]"},
		// A line that parses in both forms is read in the "::" form.
		{"::do-something::##[do-something]y", true, V2, props{}, "##[do-something]y"},
		// V2 data unescapes CR, LF and % only, in that order.
		{"::do-something::%3B%5D%250A", true, V2, props{}, "%3B%5D%0A"},
		// The culture-sensitive search looks through ignorable runes
		// (the model's widening of ICU's collation).
		{"\u00ad::do-something::x", true, V2, props{}, "x"},
		{":\u200d:do-something:\x00:x", true, V2, props{}, "x"},
		{"#\u00ad#\u034f[do-something]x", true, Legacy, props{}, "x"},
		{"::do-some\u0301thing::x", true, V2, props{}, "x"},
		// And not through visible runes, spaces or escapes.
		{"\\::do-something::x", false, 0, nil, ""},
		{"##\\[do-something]x", false, 0, nil, ""},
		{"# #[do-something]x", false, 0, nil, ""},
		{"：:do-something::x", false, 0, nil, ""},
	} {
		c, ok := Parse(tc.line, doSomething)
		if ok != tc.ok {
			t.Errorf("Parse(%q): ok %v, want %v", tc.line, ok, tc.ok)
			continue
		}
		if !ok {
			continue
		}
		if c.Form != tc.form || c.Data != tc.data || !reflect.DeepEqual(c.Props, tc.props) || c.Line != tc.line {
			t.Errorf("Parse(%q) = %s %q %v %q, want %s %q %v", tc.line, c.Form, c.Name, c.Props, c.Data, tc.form, tc.data, tc.props)
		}
	}
}

// TestLines holds Lines to StreamReader.ReadLine: LF, CR and CR LF end a
// line, a lone CR too, and no empty line follows the last end.
func TestLines(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"a", []string{"a"}},
		{"a\n", []string{"a"}},
		{"a\r\nb", []string{"a", "b"}},
		{"a\rb\n", []string{"a", "b"}},
		{"a\r\rb", []string{"a", "", "b"}},
		{"a\n\r\nb", []string{"a", "", "b"}},
		{"\n", []string{""}},
		{"a\u2028b\u0085c", []string{"a\u2028b\u0085c"}},
		{"\ufeffa", []string{"a"}},
		{"a\xffb", []string{"a\ufffdb"}},
	} {
		if got := Lines([]byte(tc.in)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Lines(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestRunner holds Runner to ActionCommandManager.TryProcessCommand: the
// cases of ActionCommandManagerL0.cs (StopProcessCommand,
// StopProcessCommandAcceptsValidToken, StopProcessCommand__FailOnInvalidStopTokens),
// and a stream in which a lone CR starts a command.
func TestRunner(t *testing.T) {
	type step struct {
		line string
		runs bool
	}
	for name, steps := range map[string][]step{
		"legacy stop and resume": {
			{"##[stop-commands]stopToken", true},
			{"##[set-env name=foo]bar", false},
			{"##[stopToken]", true},
			{"##[set-env name=foo]bar", true},
		},
		"v2 stop and resume": {
			{"::stop-commands::randomToken", true},
			{"##[set-env name=foo]bar", false},
			{"::error::x", false},
			{"::randomToken::", true},
			{"##[set-env name=foo]bar", true},
		},
		"resume in either form, any case": {
			{"::stop-commands::Tok3n", true},
			{"##[TOK3N]", true},
			{"::warning::y", true},
		},
		"invalid tokens stop nothing": {
			{"::stop-commands::", true},
			{"::error::x", true},
			{"::stop-commands::set-env", true},
			{"::error::x", true},
			{"::stop-commands::stop-commands", true},
			{"::error::x", true},
			{"::stop-commands::pause-logging", true},
			{"::error::x", true},
		},
		"a token is not registered before it stops": {
			{"::tok::", false},
			{"::stop-commands::tok", true},
			{"::tok::", true},
			{"::tok::", false},
		},
		"plain text": {
			{"", false},
			{"hello", false},
			{"a::b::c", false},
		},
	} {
		var r Runner
		for i, s := range steps {
			if _, runs := r.Line(s.line); runs != s.runs {
				t.Errorf("%s: step %d %q: runs %v, want %v", name, i, s.line, runs, s.runs)
			}
		}
	}

	cmds := Read([]byte("safe\r::add-mask::secret\nx ##[error]y\r\n::error file=a.cue,line=3,col=2,title=T::m%0Ai\n"))
	var got []string
	for _, c := range cmds {
		got = append(got, c.Form.String()+c.Name+"|"+c.Data)
	}
	want := []string{"::add-mask|secret", "##[error|y", "::error|m\ni"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Read: %q, want %q", got, want)
	}
	if p := cmds[2].Props; p["file"] != "a.cue" || p["line"] != "3" || p["col"] != "2" || p["title"] != "T" {
		t.Errorf("Read: props %v", p)
	}
}

// TestIsWhiteSpace: .NET's Char.IsWhiteSpace is Unicode's White_Space.
func TestIsWhiteSpace(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if IsWhiteSpace(r) != unicode.IsSpace(r) {
			t.Errorf("U+%04X: IsWhiteSpace %v, unicode.IsSpace %v", r, IsWhiteSpace(r), unicode.IsSpace(r))
		}
	}
}

// TestIgnorable pins the runes the model looks through, and that visible
// ones and spaces stay.
func TestIgnorable(t *testing.T) {
	for _, r := range "\x00\x01\x1b\x7f\u0085\u00ad\u034f\u0591\u061c\u115f\u180e\u200b\u200d\u2060\u2066\u3164\ufe0f\ufeff\U000e0001\U000e0100\U000effff" {
		if !Ignorable(r) {
			t.Errorf("U+%04X is not ignorable", r)
		}
	}
	for _, r := range "\t :#[]a\u00e9\u0627\u4e2d\uff1a\u00a0\u2028\ufffd\U0001f600" {
		if Ignorable(r) {
			t.Errorf("U+%04X is ignorable", r)
		}
	}
	if f := Fold("a\u00adb\x00c"); f != "abc" || strings.ContainsRune(f, 0) {
		t.Errorf("Fold: %q", f)
	}
}
