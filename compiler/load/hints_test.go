package load

import "testing"

func TestHint(t *testing.T) {
	schema := lazySchema()
	for _, tc := range []struct {
		msg  string
		path []string
		want string
	}{
		{"field not allowed", []string{"classes", "web", "replica"}, `field not allowed; did you mean "replicas"?`},
		{"field not allowed", []string{"pools", "a", "size", "maxx"}, `field not allowed; did you mean "max"?`},
		{"field not allowed", []string{"pool"}, `field not allowed; did you mean "pools"?`},
		// A list's items follow the schema's element: a class's toleration.
		{"field not allowed", []string{"classes", "web", "tolerations", "0", "efect"}, `field not allowed; did you mean "effect"?`},
		{"field not allowed", []string{"cluster", "zzzzzzzz"}, "field not allowed (allowed here: provider, name, region, version, zones, karpenter, daemonSets, gpuAPI, unownedNamespaces, controllers)"},
		{"field not allowed", []string{"nosuch", "deeper"}, "field not allowed"},
		{`conflicting values 1.36 and =~"^1\\.[0-9]+$" (mismatched types float and string)`, []string{"cluster", "version"},
			`conflicting values 1.36 and =~"^1\\.[0-9]+$" (mismatched types float and string): write it as a string, in quotes: "1.36"`},
		{`conflicting values 4 and string (mismatched types int and string)`, []string{"classes", "web", "resources", "cpu"},
			`conflicting values 4 and string (mismatched types int and string): write it as a string, in quotes: "4"`},
		{`conflicting values "a" and int (mismatched types string and int)`, nil, `conflicting values "a" and int (mismatched types string and int)`},
	} {
		if got := hint(tc.msg, tc.path, schema); got != tc.want {
			t.Errorf("hint(%q, %v):\n got %s\nwant %s", tc.msg, tc.path, got, tc.want)
		}
	}
}
