package signature

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// complexSum evaluates a complex number written as a sum, such as
// "-2+3.5j", which ast.literal_eval accepts too.
func (s *source) complexSum(lo, hi int) (any, bool) {
	op := hi - 2
	if op <= lo || !(s.is(op, "+") || s.is(op, "-")) || s.toks[op-1].kind != tokNumber {
		return nil, false
	}
	re, ok := s.literal(lo, op)
	if !ok {
		return nil, false
	}
	im, ok := s.literal(op+1, hi)
	imag, isComplex := im.(complex128)
	if !ok || !isComplex {
		return nil, false
	}
	if s.toks[op].text == "-" {
		imag = -imag
	}
	switch re := re.(type) {
	case int64:
		return complex(float64(re), 0) + imag, true
	case float64:
		return complex(re, 0) + imag, true
	}
	return nil, false
}

// negate applies unary minus to a number.
func negate(v any) (any, bool) {
	switch v := v.(type) {
	case int64:
		if v == math.MinInt64 {
			return new(big.Int).Neg(big.NewInt(v)), true
		}
		return -v, true
	case *big.Int:
		return normalInt(new(big.Int).Neg(v)), true
	case float64:
		return -v, true
	case complex128:
		return -v, true
	}
	return nil, false
}

// positive applies unary plus to a number.
func positive(v any) (any, bool) {
	switch v.(type) {
	case int64, *big.Int, float64, complex128:
		return v, true
	}
	return nil, false
}

// parseNumber evaluates a Python numeric literal: ints in any base with
// underscores, floats and imaginary numbers.
func parseNumber(text string) (any, bool) {
	if strings.HasPrefix(text, "_") || strings.HasSuffix(text, "_") || strings.Contains(text, "__") {
		return nil, false
	}
	lower := strings.ToLower(strings.ReplaceAll(text, "_", ""))
	if imag, ok := strings.CutSuffix(lower, "j"); ok {
		f, ok := parseFloat(imag)
		return complex(0, f), ok
	}
	base := 10
	switch {
	case strings.HasPrefix(lower, "0x"):
		base = 16
	case strings.HasPrefix(lower, "0o"):
		base = 8
	case strings.HasPrefix(lower, "0b"):
		base = 2
	case strings.ContainsAny(lower, ".e"):
		return parseFloat(lower)
	}
	digits := lower
	if base != 10 {
		digits = lower[2:]
	} else if len(digits) > 1 && strings.Trim(digits, "0") != "" && digits[0] == '0' {
		return nil, false // Python rejects leading zeros such as 012
	}
	n, ok := new(big.Int).SetString(digits, base)
	if !ok || strings.HasPrefix(digits, "+") || strings.HasPrefix(digits, "-") {
		return nil, false
	}
	return normalInt(n), true
}

// parseFloat parses a decimal float; overflow gives ±Inf, as in Python.
func parseFloat(text string) (float64, bool) {
	// Go also accepts "inf", "nan" and hex floats, which Python spells differently.
	if text == "" || strings.ContainsAny(text, "xnpi") {
		return 0, false
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// normalInt returns n as an int64 when it fits.
func normalInt(n *big.Int) any {
	if n.IsInt64() {
		return n.Int64()
	}
	return n
}
