package budget

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// Price is what a model's tokens cost, in US dollars per million tokens.
type Price struct {
	Input, Output float64
}

// Cost is the price of prompt and completion tokens, in US dollars.
func (p Price) Cost(prompt, completion int) float64 {
	return (float64(prompt)*p.Input + float64(completion)*p.Output) / 1e6
}

// Prices are the prices by model name; the key "" is the price of every
// model without its own (--price-input and --price-output).
type Prices map[string]Price

// Of returns the price of model, and false when none is known.
func (ps Prices) Of(model string) (Price, bool) {
	if p, ok := ps[model]; ok {
		return p, true
	}
	p, ok := ps[""]
	return p, ok
}

// ParsePrices reads a prices file: one model a line, its name then the
// input and output prices in US dollars per million tokens, separated by
// white space; blank lines and lines starting with # are skipped. The
// name * stands for every model without its own line.
func ParsePrices(text []byte) (Prices, error) {
	ps := Prices{}
	sc := bufio.NewScanner(bytes.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 3 {
			return nil, fmt.Errorf("line %d: want a model name and two prices (input, output; USD per million tokens), got %q", n, line)
		}
		in, err := ParseAmount(f[1])
		if err != nil {
			return nil, fmt.Errorf("line %d: input price: %w", n, err)
		}
		out, err := ParseAmount(f[2])
		if err != nil {
			return nil, fmt.Errorf("line %d: output price: %w", n, err)
		}
		name := f[0]
		if name == "*" {
			name = ""
		}
		if _, dup := ps[name]; dup {
			return nil, fmt.Errorf("line %d: model %s is priced twice", n, f[0])
		}
		ps[name] = Price{Input: in, Output: out}
	}
	return ps, sc.Err()
}

// LoadPrices reads the prices file at path (see ParsePrices).
func LoadPrices(path string) (Prices, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("prices file: %w", err)
	}
	ps, err := ParsePrices(text)
	if err != nil {
		return nil, fmt.Errorf("prices file %s: %w", path, err)
	}
	return ps, nil
}

// ParseAmount reads an amount of US dollars, such as 0.15 or $2.50, which
// must be finite and not negative.
func ParseAmount(s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimPrefix(strings.TrimSpace(s), "$"), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || f < 0 {
		return 0, fmt.Errorf("%q is not an amount of US dollars (e.g. 0.50)", s)
	}
	return f, nil
}
