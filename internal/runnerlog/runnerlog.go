// Package runnerlog models how the GitHub Actions runner reads what a step
// prints: the lines it cuts each stream into, and the workflow commands it
// finds in those lines and runs. Tests use it as an oracle: gpufleet's
// output, whatever the input, must issue no command gpufleet did not mean.
//
// It is a model written from the runner's code, not a copy of it. The code
// read is github.com/actions/runner at commit
// 258d6c857db3519913f7deb6004b60172f8043ae (August 2026):
//
//   - src/Runner.Sdk/ProcessInvoker.cs, StartReadStream: stdout and stderr
//     are each read with .NET's StreamReader.ReadLine, which ends a line at
//     LF, at CR, or at CR LF, so a lone CR starts a new line ([Lines]);
//   - src/Runner.Worker/Handlers/OutputManager.cs, OnDataReceived: a line
//     holding "##[" or "::" goes to the command manager;
//   - src/Runner.Worker/ActionCommandManager.cs,
//     ActionCommandManager.TryProcessCommand: the line is parsed in the
//     "::" form (ActionCommand.TryParseV2) and, failing that, in the legacy
//     "##[" form (ActionCommand.TryParse), against the registered commands;
//     "stop-commands" registers its data as a token, and until a line
//     parses as that token no other command runs ([Runner]);
//     ValidateStopToken refuses an empty or registered token;
//   - src/Runner.Common/ActionCommand.cs, TryParseV2 and TryParse: the two
//     forms, their properties and their escapes ([Parse]);
//   - src/Runner.Common/ExtensionManager.cs, LoadExtensions, and the
//     extensions' Command names in ActionCommandManager.cs: the registered
//     commands ([Registered]).
//
// Where the runner's behaviour depends on more than its own code, the
// model takes the side that finds more commands, so output in which the
// model finds none is output in which the runner finds none:
//
//   - TryParseV2's StartsWith("::") and IndexOf("::", n), and TryParse's
//     IndexOf("##["), pass no StringComparison, so .NET compares with the
//     current culture: on Linux, ICU's collation, which gives some code
//     points no weight at all (NUL and other controls, the soft hyphen and
//     other format characters, some combining marks), and so finds ":\u00ad:"
//     as "::". The model cannot carry ICU's tables: before it searches, it
//     drops every rune that may be ignorable ([Ignorable]: control characters
//     but tab, format characters, combining marks, default-ignorable code
//     points, and code points Go's tables leave unassigned, which a newer
//     ICU may know as any of these). The runner then slices the line at
//     fixed offsets, which an ignored rune shifts; the model does not, and
//     so finds some commands the runner would garble;
//   - command names are matched as the runner's OrdinalIgnoreCase HashSet
//     matches them, and also by Unicode case folding (which matches a few
//     more, like the Kelvin sign for "k");
//   - "notice" runs only where the server enables enhanced annotations;
//     the model runs it always; "internal-set-repo-path" is registered
//     only while a runner plugin runs; the model registers it always.
package runnerlog

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Form is how a command was written.
type Form int

const (
	// V2 is "::name k=v,k=v::data", at the start of a line after its
	// leading white space.
	V2 Form = iota + 1
	// Legacy is "##[name k=v;k=v]data", anywhere in a line.
	Legacy
)

func (f Form) String() string {
	switch f {
	case V2:
		return "::"
	case Legacy:
		return "##["
	}
	return "?"
}

// Command is a workflow command the runner read.
type Command struct {
	// Name is the command as written (the runner matches it ignoring case).
	Name string
	// Props are its properties, keys lower-cased (the runner's dictionary
	// ignores their case).
	Props map[string]string
	// Data is what follows the command, unescaped.
	Data string
	Form Form
	// Line is the line it was read from.
	Line string
}

// Registered is every command the runner registers for a step: the
// extensions ExtensionManager.LoadExtensions loads, and stop-commands.
// A stop token is registered as well while commands are stopped.
var Registered = []string{
	"internal-set-repo-path", // only while a runner plugin runs
	"set-env", "set-output", "save-state", "add-path", "add-mask",
	"add-matcher", "remove-matcher", "warning", "error", "notice",
	"debug", "group", "endgroup", "echo",
	StopCommands,
}

// StopCommands is the command that stops all others until its token.
const StopCommands = "stop-commands"

// Lines cuts one stream into the lines StreamReader.ReadLine returns: a
// line ends at LF, at CR or at CR LF, and a last line without an end is a
// line. The stream is decoded as UTF-8, as the runner reads it: an invalid
// byte becomes U+FFFD and a leading byte-order mark is dropped.
func Lines(out []byte) []string {
	s := strings.ToValidUTF8(string(out), "\uFFFD")
	s = strings.TrimPrefix(s, "\uFEFF")
	var lines []string
	for len(s) > 0 {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i])
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			i++
		}
		s = s[i+1:]
	}
	return lines
}

// Ignorable reports whether ICU's collation may give r no weight, so that
// the runner's culture-sensitive search for "::" or "##[" looks through
// it: a control character but tab, a format character, a combining mark,
// a default-ignorable code point, or one Go's Unicode tables do not know.
func Ignorable(r rune) bool {
	switch {
	case r < utf8.RuneSelf:
		return r != '\t' && (r < ' ' || r == 0x7f)
	case unicode.In(r, unicode.Cc, unicode.Cf, unicode.Mn, unicode.Me,
		unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector):
		return true
	}
	return !assigned(r)
}

// assigned reports whether r has a general category in Go's tables other
// than Cn, unassigned (which newer Go tables list, and "C" includes).
func assigned(r rune) bool {
	for name, t := range unicode.Categories {
		if name != "Cn" && name != "C" && unicode.Is(t, r) {
			return true
		}
	}
	return false
}

// Fold is line as the model searches it: without its ignorable runes.
func Fold(line string) string {
	if strings.IndexFunc(line, Ignorable) < 0 {
		return line
	}
	return strings.Map(func(r rune) rune {
		if Ignorable(r) {
			return -1
		}
		return r
	}, line)
}

// IsWhiteSpace is .NET's Char.IsWhiteSpace, which String.TrimStart trims:
// the Unicode space, line and paragraph separators (Zs, Zl, Zp), U+0009
// to U+000D, U+0085 and U+00A0. It is the same set as Unicode's
// White_Space property, Go's unicode.IsSpace.
func IsWhiteSpace(r rune) bool {
	switch {
	case r >= '\t' && r <= '\r', r == 0x85, r == 0xA0:
		return true
	}
	return unicode.In(r, unicode.Zs, unicode.Zl, unicode.Zp)
}

// Parse reads line as the runner's TryParseV2, then TryParse, read it,
// matching names with registered. It reports no command for a line that
// holds neither form or whose name is not registered.
func Parse(line string, registered func(name string) bool) (Command, bool) {
	f := Fold(line)
	if c, ok := parseV2(f, registered); ok {
		c.Line = line
		return c, true
	}
	if c, ok := parseLegacy(f, registered); ok {
		c.Line = line
		return c, true
	}
	return Command{}, false
}

// parseV2 is ActionCommand.TryParseV2: "::" after the leading white space,
// the command info up to the next "::", its name up to the first space,
// properties "k=v" separated by commas, and the rest the data.
func parseV2(msg string, registered func(string) bool) (Command, bool) {
	msg = strings.TrimLeftFunc(msg, IsWhiteSpace)
	if !strings.HasPrefix(msg, "::") {
		return Command{}, false
	}
	end := strings.Index(msg[2:], "::")
	if end < 0 {
		return Command{}, false
	}
	end += 2
	info := msg[2:end]
	name, props, hasProps := strings.Cut(info, " ")
	if !registered(name) {
		return Command{}, false
	}
	c := Command{Name: name, Props: map[string]string{}, Form: V2}
	if hasProps && name != "" {
		for _, kv := range strings.Split(strings.TrimFunc(props, IsWhiteSpace), ",") {
			if k, v, ok := property(kv); ok {
				c.Props[strings.ToLower(k)] = unescape(v, propertyEscapes)
			}
		}
	}
	c.Data = unescape(msg[end+2:], dataEscapes)
	return c, true
}

// parseLegacy is ActionCommand.TryParse: the first "##[" anywhere in the
// line, the command info up to the next "]", its name up to the first
// space, properties "k=v" separated by semicolons, and the rest the data.
func parseLegacy(msg string, registered func(string) bool) (Command, bool) {
	start := strings.Index(msg, "##[")
	if start < 0 {
		return Command{}, false
	}
	rb := strings.IndexByte(msg[start:], ']')
	if rb < 0 {
		return Command{}, false
	}
	rb += start
	info := msg[start+3 : rb]
	name, props, hasProps := strings.Cut(info, " ")
	if !registered(name) {
		return Command{}, false
	}
	c := Command{Name: name, Props: map[string]string{}, Form: Legacy}
	if hasProps && name != "" {
		for _, kv := range strings.Split(props, ";") {
			if k, v, ok := property(kv); ok {
				c.Props[strings.ToLower(k)] = unescape(v, legacyEscapes)
			}
		}
	}
	c.Data = unescape(msg[rb+1:], legacyEscapes)
	return c, true
}

// property splits "k=v" as Split('=', 2, RemoveEmptyEntries) and the
// runner's "pair.Length == 2" do, for the pairs gpufleet could print: a
// pair needs a key and a value. (Which pieces .NET keeps of a pair with
// leading or doubled '=' does not decide whether a command runs.)
func property(kv string) (k, v string, ok bool) {
	kv = strings.TrimLeft(kv, "=")
	k, v, ok = strings.Cut(kv, "=")
	return k, v, ok && k != "" && v != ""
}

// The runner's unescape tables, applied in this order (ActionCommand's
// _escapeDataMappings, _escapePropertyMappings and _escapeMappings).
var (
	dataEscapes     = []string{"%0D", "\r", "%0A", "\n", "%25", "%"}
	propertyEscapes = []string{"%0D", "\r", "%0A", "\n", "%3A", ":", "%2C", ",", "%25", "%"}
	legacyEscapes   = []string{"%3B", ";", "%0D", "\r", "%0A", "\n", "%5D", "]", "%25", "%"}
)

// unescape replaces each escape in turn, as the runner's String.Replace
// loop does (so "%250A" becomes "%0A", not LF).
func unescape(s string, table []string) string {
	for i := 0; i+1 < len(table); i += 2 {
		s = strings.ReplaceAll(s, table[i], table[i+1])
	}
	return s
}

// sameName is the runner's OrdinalIgnoreCase (each UTF-16 unit upper-cased
// by the invariant culture), widened by Unicode case folding.
func sameName(a, b string) bool {
	if strings.EqualFold(a, b) {
		return true
	}
	return utf8.RuneCountInString(a) == utf8.RuneCountInString(b) &&
		strings.Map(unicode.ToUpper, a) == strings.Map(unicode.ToUpper, b)
}

// Runner is the runner's ActionCommandManager for one step: it holds
// whether commands are stopped, and the token that resumes them.
type Runner struct {
	stopped bool
	token   string
}

func (r *Runner) registered(name string) bool {
	if r.stopped && sameName(name, r.token) {
		return true
	}
	for _, c := range Registered {
		if sameName(name, c) {
			return true
		}
	}
	return false
}

// Line is TryProcessCommand: it reports the command the runner runs for
// line, if any. While commands are stopped, only the token's own command
// runs (it resumes them). A stop-commands whose token is empty or a
// registered command name is still reported (the runner fails the step
// on it), but stops nothing.
func (r *Runner) Line(line string) (Command, bool) {
	if line == "" {
		return Command{}, false
	}
	c, ok := Parse(line, r.registered)
	if !ok {
		return Command{}, false
	}
	if r.stopped {
		if r.token != "" && sameName(c.Name, r.token) {
			r.stopped, r.token = false, ""
			return c, true
		}
		return Command{}, false
	}
	if sameName(c.Name, StopCommands) {
		if c.Data != "" && !r.registered(c.Data) && !strings.EqualFold(c.Data, "pause-logging") {
			r.stopped, r.token = true, c.Data
		}
	}
	return c, true
}

// Stopped reports whether commands are stopped, awaiting their token.
func (r *Runner) Stopped() bool { return r.stopped }

// Read runs a fresh runner over one stream and returns every command it
// runs, in order.
func Read(out []byte) []Command {
	var r Runner
	var cmds []Command
	for _, l := range Lines(out) {
		if c, ok := r.Line(l); ok {
			cmds = append(cmds, c)
		}
	}
	return cmds
}
