package encode

import "testing"

// dropsEmpty is emptyDropped.
func TestDropsEmpty(t *testing.T) {
	for k := range emptyDropped {
		if !dropsEmpty([]byte(k)) {
			t.Errorf("dropsEmpty(%q) = false", k)
		}
	}
	for _, k := range []string{"", "Status", "spec ", "data", "labels"} {
		if dropsEmpty([]byte(k)) != emptyDropped[k] {
			t.Errorf("dropsEmpty(%q) differs from emptyDropped", k)
		}
	}
}
