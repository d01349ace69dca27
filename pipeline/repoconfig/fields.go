package repoconfig

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"

	"gopkg.in/yaml.v3"

	"github.com/capsulehq/capsule/sandbox/limits"
)

// field is one key of the configuration and how its value is set.
type field struct {
	key string
	set func(c *Config, v value)
}

// fields lists the keys in the order the documentation gives them.
var fields = []field{
	{"label", func(c *Config, v value) { v.nonEmpty(&c.Label, "") }},
	{"test", func(c *Config, v value) { v.nonEmpty(&c.Test, "; remove the key to detect the test command") }},
	{"reports", func(c *Config, v value) { v.patterns(&c.Reports) }},
	{"setup", func(c *Config, v value) { v.str(&c.Setup) }},
	{"network", func(c *Config, v value) { v.boolean(&c.Network) }},
	{"image", func(c *Config, v value) { v.image(&c.Image) }},
	{"devcontainer", func(c *Config, v value) { v.devcontainer(c) }},
	{"timeout", func(c *Config, v value) { v.duration(&c.Timeout) }},
	{"max_attempts", func(c *Config, v value) { v.count(&c.MaxAttempts) }},
	{"history", func(c *Config, v value) { v.count(&c.History) }},
	{"protected", func(c *Config, v value) { v.patterns(&c.Protected) }},
	{"on_failure", func(c *Config, v value) { v.oneOf(&c.OnFailure, OnFailureDraft, OnFailureComment) }},
	{"reproduce", func(c *Config, v value) { v.oneOf(&c.Reproduce, ReproduceAuto, ReproduceRequired, ReproduceOff) }},
	{"reproduce_tries", func(c *Config, v value) { v.count(&c.ReproduceTries) }},
	{"memory", func(c *Config, v value) { v.size(&c.Memory, limits.Memory) }},
	{"cpus", func(c *Config, v value) { v.cores(&c.CPUs) }},
	{"disk", func(c *Config, v value) { v.size(&c.Disk, limits.Disk) }},
	{"allow_test_infrastructure_changes", func(c *Config, v value) { v.boolean(&c.AllowTestInfrastructureChanges) }},
	{"ci_rounds", func(c *Config, v value) { v.count(&c.CIRounds) }},
	{"max_tokens_per_job", func(c *Config, v value) { v.count(&c.MaxTokensPerJob) }},
	{"max_cost_per_job", func(c *Config, v value) { v.dollars(&c.MaxCostPerJob) }},
}

// lookup returns the field called key.
func lookup(key string) (field, bool) {
	for _, f := range fields {
		if f.key == key {
			return f, true
		}
	}
	return field{}, false
}

// value is the value of one key, with what is needed to report problems.
// Each method stores the value when it is valid and reports it otherwise.
type value struct {
	p   *problems
	key string
	n   *yaml.Node
}

// fail reports a problem with the value at node n.
func (v value) fail(n *yaml.Node, format string, args ...any) {
	v.p.add(n, v.key, v.key+": "+format, args...)
}

// mismatch reports a value of the wrong type at node n.
func (v value) mismatch(n *yaml.Node, want string) {
	hint := ""
	if n == v.n && isScalar(n, "!!null") {
		hint = "; remove the key to use the default"
	}
	v.fail(n, "expected %s, got %s%s", want, describe(n), hint)
}

// isScalar reports whether n is a scalar with the given tag.
func isScalar(n *yaml.Node, tag string) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == tag
}

// str stores a string.
func (v value) str(dst *string) bool {
	if !isScalar(v.n, "!!str") {
		v.mismatch(v.n, "a string")
		return false
	}
	*dst = v.n.Value
	return true
}

// nonEmpty is str for values that must not be blank; hint ends the message
// given when one is.
func (v value) nonEmpty(dst *string, hint string) {
	var s string
	if !v.str(&s) {
		return
	}
	if strings.TrimSpace(s) == "" {
		v.fail(v.n, "must not be empty%s", hint)
		return
	}
	*dst = s
}

// image stores an image reference, which is used exactly as written.
func (v value) image(dst *string) {
	var s string
	switch {
	case !v.str(&s):
	case s == "":
		v.fail(v.n, "must not be empty; remove the key to use Capsule's default image")
	case strings.ContainsFunc(s, unicode.IsSpace):
		v.fail(v.n, "%q is not an image reference: it contains white space", s)
	default:
		*dst = s
	}
}

// boolean stores true or false; YAML 1.1's yes, no, on and off are refused.
func (v value) boolean(dst *bool) {
	if !isScalar(v.n, "!!bool") || v.n.Decode(dst) != nil {
		v.mismatch(v.n, "true or false")
	}
}

// count stores a whole number that is not negative.
func (v value) count(dst *int) {
	var n int
	if !isScalar(v.n, "!!int") || v.n.Decode(&n) != nil {
		v.mismatch(v.n, "a whole number")
		return
	}
	if n < 0 {
		v.fail(v.n, "must not be negative, got %d", n)
		return
	}
	*dst = n
}

// duration stores a positive duration written in Go's syntax ("90s", "5m")
// or as whole seconds (300, "300").
func (v value) duration(dst *time.Duration) {
	n := v.n
	if !isScalar(n, "!!str") && !isScalar(n, "!!int") {
		v.mismatch(n, `a duration such as 90s or 5m`)
		return
	}
	d, err := parseDuration(n.Value)
	switch {
	case err != nil:
		v.fail(n, "%v", err)
	case d <= 0:
		v.fail(n, "must be positive, got %s", n.Value)
	default:
		*dst = d
	}
}

// parseDuration parses s as a Go duration or as a whole number of seconds.
func parseDuration(s string) (time.Duration, error) {
	if secs, err := strconv.ParseInt(s, 10, 64); err == nil {
		const limit = math.MaxInt64 / int64(time.Second)
		if secs > limit || secs < -limit {
			return 0, fmt.Errorf("%s seconds is too long", s)
		}
		return time.Duration(secs) * time.Second, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q: use Go's syntax, such as 90s or 5m, or whole seconds", s)
	}
	return d, nil
}

// size stores a size least allows: a whole number of bytes, or
// one with a binary unit as Docker writes them or in full: 512m, 512MiB,
// 2g, 2GiB, 100k.
func (v value) size(dst *int64, least limits.Minimum) {
	if !isScalar(v.n, "!!str") && !isScalar(v.n, "!!int") {
		v.mismatch(v.n, "a size such as 512m or 2GiB")
		return
	}
	n, err := parseSize(v.n.Value)
	switch {
	case err != nil:
		v.fail(v.n, "%v", err)
	case !least.Allows(n):
		v.fail(v.n, "%s is below the minimum of %s", v.n.Value, least)
	default:
		*dst = n
	}
}

// sizeUnits are the suffixes of sizes, by their multiple.
var sizeUnits = map[string]int64{
	"": 1, "b": 1,
	"k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10,
	"m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20,
	"g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30,
	"t": 1 << 40, "tb": 1 << 40, "tib": 1 << 40,
}

// parseSize reads a size such as 512m, 2GiB or 1024 (bytes). The units
// are binary whatever their spelling, as in Docker.
func parseSize(s string) (int64, error) {
	digits := strings.TrimRightFunc(s, unicode.IsLetter)
	unit, ok := sizeUnits[strings.ToLower(strings.TrimSpace(s[len(digits):]))]
	n, err := strconv.ParseInt(strings.TrimSpace(digits), 10, 64)
	switch {
	case !ok || err != nil && !errors.Is(err, strconv.ErrRange):
		return 0, fmt.Errorf("invalid size %q: use a whole number with a unit, such as 512m or 2GiB", s)
	case err != nil || n > math.MaxInt64/unit:
		return 0, fmt.Errorf("%s is too large", s)
	}
	return n * unit, nil
}

// cores stores a positive number of CPU cores, such as 2 or 1.5.
func (v value) cores(dst *float64) {
	var f float64
	if !isScalar(v.n, "!!int") && !isScalar(v.n, "!!float") || v.n.Decode(&f) != nil {
		v.mismatch(v.n, "a number of cores such as 2 or 1.5")
		return
	}
	if !(f > 0) || math.IsInf(f, 0) {
		v.fail(v.n, "must be a positive number, got %s", v.n.Value)
		return
	}
	*dst = f
}

// dollars stores an amount of US dollars that is not negative.
func (v value) dollars(dst *float64) {
	var f float64
	if !isScalar(v.n, "!!int") && !isScalar(v.n, "!!float") || v.n.Decode(&f) != nil {
		v.mismatch(v.n, "an amount of US dollars such as 0.50")
		return
	}
	if !(f >= 0) || math.IsInf(f, 0) {
		v.fail(v.n, "must not be negative, got %s", v.n.Value)
		return
	}
	*dst = f
}

// patterns stores a list of valid path globs.
func (v value) patterns(dst *[]string) {
	if v.n.Kind != yaml.SequenceNode {
		v.mismatch(v.n, "a list of path patterns (use [] for none)")
		return
	}
	list := make([]string, 0, len(v.n.Content))
	ok := true
	for _, item := range v.n.Content {
		item = resolve(item)
		if !isScalar(item, "!!str") {
			v.mismatch(item, "a path pattern")
			ok = false
			continue
		}
		if err := checkPattern(item.Value); err != nil {
			v.fail(item, "bad pattern %q: %v", item.Value, err)
			ok = false
			continue
		}
		list = append(list, item.Value)
	}
	if ok {
		*dst = list
	}
}

// oneOf stores a string that is one of choices.
func (v value) oneOf(dst *string, choices ...string) {
	var s string
	if !v.str(&s) {
		return
	}
	for _, c := range choices {
		if s == c {
			*dst = s
			return
		}
	}
	quoted := make([]string, len(choices))
	for i, c := range choices {
		quoted[i] = strconv.Quote(c)
	}
	v.fail(v.n, "expected %s, got %q", strings.Join(quoted, " or "), s)
}
