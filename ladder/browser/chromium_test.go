// Package browser holds report/placement.html, the report's web page, to
// what a real browser makes of it: headless Chromium loads each example
// fleet's page from the tree gpufleet builds, and the DOM it builds (its
// --dump-dom) must show every class × pool cell, cost and stranded GPU
// figure of the same tree's report/placement.json, in the right row and
// column, and its screenshot must be a drawn heat map, not a blank or
// unstyled page. Deliberate bugs (a page of a report with one capacity or
// one price changed, a blank page, a page without its style, a page with a
// name left unescaped) must each fail the check that should catch it.
// scripts/browser.sh installs Debian's chromium and runs this; without
// Chromium the test fails, never skips.
package browser_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// noChromium is the failure without Chromium: the rung never skips.
const noChromium = "Chromium is not installed (no chromium, chromium-browser or google-chrome on PATH, and $CHROMIUM is unset): " +
	"run scripts/browser.sh (make test-browser), which installs Debian's chromium (apt-get install -y --no-install-recommends chromium), " +
	"or install it yourself; the browser rung fails without it, it never skips"

// findChromium is Chromium's binary: $CHROMIUM, Debian's binary itself
// (not its launcher script, /usr/bin/chromium, which adds flags of its
// own and probes the machine in shell), or the first of the usual names
// on PATH; "" if there is none.
func findChromium() string {
	if c := os.Getenv("CHROMIUM"); c != "" {
		return c
	}
	if _, err := os.Stat(debianChromium); err == nil {
		return debianChromium
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

const debianChromium = "/usr/lib/chromium/chromium"

// TestMain fails the whole rung at once, with what to do, when Chromium
// is missing.
func TestMain(m *testing.M) {
	if findChromium() == "" {
		fmt.Fprintln(os.Stderr, "FAIL: "+noChromium)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

func chromiumBin(t *testing.T) string {
	t.Helper()
	bin := findChromium()
	if bin == "" {
		t.Fatal(noChromium)
	}
	return bin
}

var versionOnce sync.Once

// chromium runs headless Chromium with args after the flags every run
// takes, in a profile of its own, and returns its stdout. The flags keep
// it off the network: on a closed network, background networking (updates,
// safe browsing, sync, QUIC probes) floods it with failing requests.
func chromium(t *testing.T, args ...string) []byte {
	t.Helper()
	bin := chromiumBin(t)
	versionOnce.Do(func() {
		v, err := exec.Command(bin, "--version").Output()
		if err != nil {
			t.Fatalf("%s --version: %v", bin, err)
		}
		t.Logf("browser: %s", strings.TrimSpace(string(v)))
	})
	flags := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-extensions", "--disable-default-apps", "--disable-dev-shm-usage",
		"--mute-audio", "--no-default-browser-check", "--hide-scrollbars",
		"--force-device-scale-factor=1",
		"--user-data-dir=" + t.TempDir(),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(flags, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, tail(stderr.String(), 2000))
	}
	return stdout.Bytes()
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}

// fileURL is the file:// URL of path.
func fileURL(t *testing.T, path string) string {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return "file://" + filepath.ToSlash(abs)
}

// dumpDOM loads the page at path and parses the DOM Chromium serialises
// after the load event.
func dumpDOM(t *testing.T, path string) *html.Node {
	t.Helper()
	return parseDOM(t, path, chromium(t, "--dump-dom", fileURL(t, path)))
}

// render loads the page at path once for its DOM and a screenshot of its
// first screen.
func render(t *testing.T, path string) (*html.Node, image.Image) {
	t.Helper()
	shot := filepath.Join(t.TempDir(), "shot.png")
	out := chromium(t, "--dump-dom", "--screenshot="+shot, fmt.Sprintf("--window-size=%d,%d", shotW, shotH), fileURL(t, path))
	return parseDOM(t, path, out), readShot(t, path, shot)
}

func parseDOM(t *testing.T, path string, out []byte) *html.Node {
	t.Helper()
	if len(bytes.TrimSpace(out)) == 0 {
		t.Fatalf("chromium --dump-dom %s printed nothing", path)
	}
	doc, err := html.Parse(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("parsing the DOM of %s: %v", path, err)
	}
	return doc
}

// Screenshots are taken in a window this big.
const shotW, shotH = 1280, 900

// readShot decodes the PNG Chromium took of the page at path, and keeps a
// copy in $BROWSER_SHOTS if set.
func readShot(t *testing.T, path, shot string) image.Image {
	t.Helper()
	b, img := decodeShot(t, path, shot)
	if r := img.Bounds(); r.Dx() != shotW || r.Dy() != shotH {
		t.Errorf("screenshot of %s is %dx%d, want %dx%d", path, r.Dx(), r.Dy(), shotW, shotH)
	}
	if dir := os.Getenv("BROWSER_SHOTS"); dir != "" {
		name := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()) + ".png"
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Log(err)
		}
	}
	return img
}

// decodeShot reads and decodes the PNG Chromium took of the page at path.
func decodeShot(t *testing.T, path, shot string) ([]byte, image.Image) {
	t.Helper()
	b, err := os.ReadFile(shot)
	if err != nil {
		t.Fatalf("chromium wrote no screenshot of %s: %v", path, err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("screenshot of %s: %v", path, err)
	}
	return b, img
}
