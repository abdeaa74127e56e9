package plan

import "testing"

// TestEnforcementChange: from Deny down to nothing loosens, up tightens,
// and no change is none.
func TestEnforcementChange(t *testing.T) {
	for _, tc := range []struct{ before, after, want string }{
		{"Deny", "Audit", "loosens"},
		{"Deny", "Warn+Audit", "loosens"},
		{"Warn+Audit", "Audit", "loosens"},
		{"Audit", "", "loosens"},
		{"Audit", "Deny", "tightens"},
		{"", "Deny", "tightens"},
		{"Audit", "Warn+Audit", "tightens"},
		{"Deny", "Deny", ""},
	} {
		c := enforcementChange(tc.before, tc.after)
		switch {
		case tc.want == "" && c != nil:
			t.Errorf("%q → %q: %+v, want no change", tc.before, tc.after, c)
		case tc.want != "" && (c == nil || c.Change != tc.want):
			t.Errorf("%q → %q: %+v, want %s", tc.before, tc.after, c, tc.want)
		}
	}
}
