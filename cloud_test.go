package gpufleet_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// awsPackages hold AWS's facts: the cloud behind the seam, the node groups
// AWS launches, and the wire formats of its tools. Karpenter's
// (compiler/wire/karpenter) may name them too, for its AWS provider's
// EC2NodeClass, but the rest of Karpenter's API is any cloud's.
var (
	awsPackages     = []string{"compiler/cloud/aws", "compiler/nodegroup/eks", "compiler/nodegroup/karpenter", "compiler/wire/eksctl", "compiler/wire/terraform"}
	awsFactPackages = append([]string{"compiler/wire/karpenter"}, awsPackages...)
)

// registries name each cloud once, to select it (docs/architecture.md,
// "Adding a cloud").
var registries = []string{"compiler/cloud/cloud.go", "compiler/nodegroup/nodegroup.go"}

// notBehindSeam names AWS facts that have yet to move behind the seam,
// and why they may stay for now.
var notBehindSeam = map[string]string{
	"compiler/check": "check's own and its models': the EFA device plugin, Karpenter's price table and Bottlerocket's host plugin, next to move behind the seam",
}

// awsFact is an AWS fact in a string: a domain, a tool, an OS, an
// instance type.
var awsFact = regexp.MustCompile(`(?i)amazon|\baws\b|eksctl|\beks\b|\bec2|bottlerocket|\b[a-z][a-z0-9]*\.(\d*xlarge|large|metal)\b`)

// goFile is a parsed non-test Go file of compiler/.
type goFile struct {
	path, pkg string
	f         *ast.File
}

func compilerFiles(t *testing.T) []goFile {
	t.Helper()
	var out []goFile
	fset := token.NewFileSet()
	err := filepath.WalkDir("compiler", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		out = append(out, goFile{path: filepath.ToSlash(path), pkg: filepath.ToSlash(filepath.Dir(path)), f: f})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("no Go files under compiler/")
	}
	return out
}

func within(pkg string, pkgs []string) bool {
	return slices.ContainsFunc(pkgs, func(p string) bool { return pkg == p || strings.HasPrefix(pkg, p+"/") })
}

// exempt reports whether pkg may name AWS's facts.
func exempt(pkg string) bool {
	return within(pkg, awsFactPackages) || within(pkg, slices.Collect(maps.Keys(notBehindSeam)))
}

// TestCloudFactsBehindSeam: outside AWS's own packages, no package under
// compiler/ imports them or spells an AWS fact; the stages read the cloud
// through compiler/cloud.
func TestCloudFactsBehindSeam(t *testing.T) {
	for _, gf := range compilerFiles(t) {
		if exempt(gf.pkg) {
			continue
		}
		for _, imp := range gf.f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			dep := strings.TrimPrefix(path, module)
			if dep != path && within(dep, awsPackages) && !slices.Contains(registries, gf.path) {
				t.Errorf("%s imports %s: a stage reads the cloud through compiler/cloud (docs/architecture.md, \"Adding a cloud\")", gf.path, dep)
			}
		}
		for _, d := range gf.f.Decls {
			if g, ok := d.(*ast.GenDecl); !ok || g.Tok != token.IMPORT {
				inspectStrings(t, gf.path, d)
			}
		}
	}
}

// inspectStrings fails on every string literal in n that spells an AWS
// fact.
func inspectStrings(t *testing.T, path string, n ast.Node) {
	t.Helper()
	ast.Inspect(n, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return true
		}
		if m := awsFact.FindString(s); m != "" {
			t.Errorf("%s spells the AWS fact %q (%q): it belongs in compiler/cloud/aws, behind cloud.Cloud", path, m, s)
		}
		return true
	})
}

// TestAddingACloud holds docs/architecture.md's list of the files a new
// cloud touches to the code: it counts them right, the files it names
// exist, and AWS's package has exactly the files the list gives a cloud's.
// TestCloudFactsBehindSeam holds the rest of compiler/ to the list.
func TestAddingACloud(t *testing.T) {
	b, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Adding a cloud\n")
	if !ok {
		t.Fatal(`docs/architecture.md has no "## Adding a cloud" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	items := regexp.MustCompile("(?m)^\\d+\\. `([^`]+)`").FindAllStringSubmatch(section, -1)
	count := regexp.MustCompile(`touches \*\*(\d+) files\*\*`).FindStringSubmatch(section)
	if count == nil || count[1] != strconv.Itoa(len(items)) {
		t.Errorf("the section lists %d files but says %v", len(items), count)
	}
	var listed, own []string
	for _, it := range items {
		if rest, ok := strings.CutPrefix(it[1], "compiler/cloud/<name>/"); ok {
			listed = append(listed, strings.ReplaceAll(rest, "<name>", "aws"))
		}
		if _, err := os.Stat(it[1]); !strings.Contains(it[1], "<") && err != nil {
			t.Errorf("the section lists %s: %v", it[1], err)
		}
	}
	for _, gf := range compilerFiles(t) {
		if gf.pkg == "compiler/cloud/aws" {
			own = append(own, filepath.Base(gf.path))
		}
	}
	slices.Sort(listed)
	slices.Sort(own)
	if !slices.Equal(listed, own) {
		t.Errorf("the section lists compiler/cloud/<name>/ files %v; compiler/cloud/aws has %v", listed, own)
	}
}
