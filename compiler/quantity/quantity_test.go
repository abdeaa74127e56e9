package quantity

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

// parseWithin is Parse, failing the test if it takes longer than d:
// resource.ParseQuantity alone ran for minutes on the refused cases.
func parseWithin(t *testing.T, d time.Duration, s string) (resource.Quantity, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	type result struct {
		q   resource.Quantity
		err error
	}
	done := make(chan result, 1)
	go func() {
		q, err := Parse(s)
		done <- result{q, err}
	}()
	select {
	case r := <-done:
		return r.q, r.err
	case <-ctx.Done():
		t.Fatalf("Parse(%.40q) ran past %s", s, d)
		return resource.Quantity{}, nil
	}
}

func TestParse(t *testing.T) {
	digits64 := strings.Repeat("1", 64)
	for _, c := range []struct {
		in      string
		refused error // else as resource.ParseQuantity
	}{
		{"1e1000000000", errExponent},
		{"1E100000000", errExponent},
		{"1e-1000000000", errExponent},
		{"-1e+1000000000", errExponent},
		{"0.5e4294967296", errExponent}, // ParseQuantity truncates the exponent to int32: 0.5
		{"1e4294967297", errExponent},   // … and this to 1e1
		{"4294967296e4294967296", errExponent},
		{"1e101", errExponent},
		{"1e-101", errExponent},
		{"1e0000000000000000000101", errExponent},
		{"e1000000000", errExponent},
		{"." + digits64 + "1", errDigits},
		{digits64 + "1", errDigits},
		{"0." + strings.Repeat("0", 70) + "1", errDigits},
		{"1e100", nil},
		{"1e-100", nil},
		{"1e+0100", nil},
		{"1e0000000000000000000100", nil},
		{digits64, nil},
		{"1e1000000000x", errExponent}, // refused either way
		{"1ex", nil},
		{"1e", nil},
		{"1E", nil},
		{"500m", nil},
		{"1.5Gi", nil},
		{"64Ti", nil},
		{"0", nil},
		{"", nil},
		{" 1e1000000000", nil}, // ParseQuantity refuses the space at once
		{"1 GB", nil},
		{"-4", nil},
		{"100Pi", nil},
	} {
		got, err := parseWithin(t, 5*time.Second, c.in)
		if c.refused != nil {
			if err != c.refused {
				t.Errorf("Parse(%q) = %v, %v; want %v", c.in, got.String(), err, c.refused)
			}
			continue
		}
		want, wantErr := resource.ParseQuantity(c.in)
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(err, wantErr) {
			t.Errorf("Parse(%q) = %v, %v; want ParseQuantity's %v, %v", c.in, got.String(), err, want.String(), wantErr)
		}
	}
}
