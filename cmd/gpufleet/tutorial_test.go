package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// tutorialPath is the tutorial TestTutorial runs.
const tutorialPath = "../../docs/tutorial.md"

// block is one fenced code block of the tutorial: a ```sh block is run
// (exit=N says the status it must end with, no-test leaves it out); a
// ```text block right after it is its output, whose lines must appear in
// what it prints, in order.
type block struct {
	line   int
	lang   string
	exit   int
	noTest bool
	body   string
	want   *block // the output block after a sh block
}

var fence = regexp.MustCompile("^```(\\S*)(.*)$")

// tutorialBlocks reads the tutorial's sh blocks, each with its output.
func tutorialBlocks(src []byte) ([]*block, error) {
	var all []*block
	var cur *block
	var gap bool // only blank lines since the last block closed
	sc := bufio.NewScanner(bytes.NewReader(src))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		m := fence.FindStringSubmatch(line)
		switch {
		case cur != nil && line == "```":
			all = append(all, cur)
			cur, gap = nil, true
		case cur != nil:
			cur.body += line + "\n"
		case m != nil:
			cur = &block{line: n, lang: m[1]}
			for _, opt := range strings.Fields(m[2]) {
				switch {
				case opt == "no-test":
					cur.noTest = true
				case strings.HasPrefix(opt, "exit="):
					code, err := strconv.Atoi(strings.TrimPrefix(opt, "exit="))
					if err != nil {
						return nil, fmt.Errorf("tutorial.md:%d: %q: %v", n, opt, err)
					}
					cur.exit = code
				default:
					return nil, fmt.Errorf("tutorial.md:%d: unknown option %q (exit=N, no-test)", n, opt)
				}
			}
			if cur.lang == "text" && gap && len(all) > 0 && all[len(all)-1].lang == "sh" {
				all[len(all)-1].want = cur
			}
		case strings.TrimSpace(line) != "":
			gap = false
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("tutorial.md:%d: a code block is not closed", cur.line)
	}
	var sh []*block
	for _, b := range all {
		if b.lang == "sh" {
			sh = append(sh, b)
		}
	}
	return sh, nil
}

// network is what a block left out of the test may do that the test
// cannot: reach GitHub.
var network = regexp.MustCompile(`(?m)^\s*(git push|gh |curl )`)

// runBlock runs b's commands with bash in dir, as a reader would paste
// them, and says how they disagree with the tutorial.
func runBlock(dir string, b *block) (out []byte, bad []string) {
	cmd := exec.Command("bash", "-e", "-o", "pipefail", "-c", b.body)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME=Tutorial", "GIT_AUTHOR_EMAIL=tutorial@example.com", "GIT_COMMITTER_NAME=Tutorial", "GIT_COMMITTER_EMAIL=tutorial@example.com",
		"NO_COLOR=1", "LC_ALL=C.UTF-8")
	out, err := cmd.CombinedOutput()
	code := 0
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		return out, []string{fmt.Sprintf("tutorial.md:%d: %v", b.line, err)}
	}
	if code != b.exit {
		bad = append(bad, fmt.Sprintf("tutorial.md:%d: exit %d, the tutorial says %d:\n%s", b.line, code, b.exit, out))
	}
	return out, append(bad, outputDiffers(b, out)...)
}

// outputDiffers says which of the lines the tutorial shows for b are not
// in out, in order.
func outputDiffers(b *block, out []byte) []string {
	if b.want == nil {
		return nil
	}
	got := strings.Split(string(out), "\n")
	k := 0
	for _, w := range strings.Split(b.want.body, "\n") {
		if strings.TrimSpace(w) == "" {
			continue
		}
		for k < len(got) && got[k] != w {
			k++
		}
		if k == len(got) {
			return []string{fmt.Sprintf("tutorial.md:%d: the output shows %q, which the commands at line %d do not print (after the lines before it); they print:\n%s", b.want.line, w, b.line, out)}
		}
		k++
	}
	return nil
}

// TestTutorial runs docs/tutorial.md's commands in order in an empty
// directory, with this test binary as gpufleet on PATH (TestMain) and a
// git with no user configuration: each block must end with the status the
// tutorial gives, and print the lines it shows. Only blocks that need
// GitHub are left out. Deliberate bugs, each of which must be caught: an
// output line the tool does not print, and a command line the CLI refuses.
func TestTutorial(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("the tutorial needs git on PATH")
	}
	src, err := os.ReadFile(tutorialPath)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := tutorialBlocks(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ran, shown := 0, 0
	var explain *block
	for _, b := range blocks {
		if b.noTest {
			if !network.MatchString(b.body) {
				t.Errorf("tutorial.md:%d: a block left out of the test must need GitHub (git push, gh, curl):\n%s", b.line, b.body)
			}
			continue
		}
		_, bad := runBlock(dir, b)
		for _, msg := range bad {
			t.Error(msg)
		}
		if len(bad) > 0 {
			t.FailNow() // the later blocks build on this one
		}
		ran++
		if b.want != nil {
			shown++
		}
		if strings.Contains(b.body, "gpufleet explain") && b.want != nil {
			explain = b
		}
	}
	if ran < 10 || shown < 7 || explain == nil {
		t.Fatalf("the tutorial has %d blocks run, %d with output, explain shown: %v; fewer than it had", ran, shown, explain != nil)
	}
	t.Logf("ran %d blocks of docs/tutorial.md (%d with their output), left out %d that need GitHub", ran, shown, len(blocks)-ran)

	// An output line the tool does not print is caught ...
	drifted := *explain
	drifted.want = &block{line: explain.want.line, body: strings.Replace(explain.want.body, "8 pods at max size", "9 pods at max size", 1)}
	if _, bad := runBlock(dir, &drifted); len(bad) != 1 || !strings.Contains(bad[0], "9 pods at max size") {
		t.Errorf("an output the tool does not print was not caught: %q", bad)
	}
	// ... and so is a command line the CLI refuses.
	refused := *explain
	refused.body = strings.Replace(explain.body, "--pool", "--pools", 1)
	if _, bad := runBlock(dir, &refused); len(bad) == 0 || !strings.Contains(bad[0], "exit 2, the tutorial says 0") {
		t.Errorf("a flag the CLI refuses was not caught: %q", bad)
	}
}
