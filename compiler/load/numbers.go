package load

import (
	"fmt"

	"cuelang.org/go/cue/ast"
	cueerrors "cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/token"
	"github.com/cockroachdb/apd/v3"
)

// exactNumbers refuses a number literal CUE cannot hold. CUE keeps a number
// as a decimal whose exponent is within ±100000 (apd's); for a literal past
// that it drops the error and keeps the digits alone, so 1e1000000 and
// 1e-1000000000 both evaluate to 1, and a quantity of either was written
// to the tree as "1". CUE's arithmetic reports the same overflow as an
// error; only literals are silent.
func exactNumbers(n ast.Node) error {
	var err error
	ast.Walk(n, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if err != nil || !ok || lit.Kind != token.INT && lit.Kind != token.FLOAT {
			return err == nil
		}
		var num literal.NumInfo
		if literal.ParseNum(lit.Value, &num) != nil {
			return true // CUE reports it
		}
		// num.String is the text CUE gives apd (for a decimal without a
		// multiplier, which is the only kind with an exponent).
		if _, _, e := new(apd.Decimal).SetString(num.String()); e != nil {
			err = cueerrors.Newf(lit.Pos(), "the number %s has an exponent beyond ±%d, which CUE cannot hold (it would read it as %s)", short(lit.Value), apd.MaxExponent, coefficient(num.String()))
		}
		return true
	}, nil)
	return err
}

// coefficient is the digits apd keeps of a number it cannot hold.
func coefficient(s string) string {
	var d apd.Decimal
	_ = d.UnmarshalText([]byte(s))
	return d.String()
}

func short(s string) string {
	if len(s) > 40 {
		return fmt.Sprintf("%s...", s[:37])
	}
	return s
}
