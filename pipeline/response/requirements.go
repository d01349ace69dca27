package response

import (
	"regexp"
	"strings"
)

var (
	// bulletRE matches a list marker at the start of an item.
	bulletRE = regexp.MustCompile(`^(?:[-*+•]|\d{1,3}[.)])[ \t]+`)
	// pipRE matches an install command in front of package names.
	pipRE = regexp.MustCompile(`^(?i)(?:python3? -m )?pip3? install[ \t]+`)
	// noteRE matches a trailing parenthetical note: "numpy (for arrays)".
	noteRE = regexp.MustCompile(`[ \t]*\([^()]*\)$`)
	// packageRE matches a requirement specifier: a distribution name, optional
	// extras and an optional version constraint.
	packageRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*(?:\[[A-Za-z0-9._,-]*\])?(?:[ \t]*(?:==|>=|<=|~=|!=|>|<)[ \t]*[A-Za-z0-9.*+!-]+)?$`)
)

// noneWords are the ways models say that nothing is required.
var noneWords = map[string]bool{
	"none": true, "n/a": true, "na": true, "nil": true, "null": true, "no": true,
	"nothing": true, "-": true, "—": true, "not applicable": true,
	"no requirements": true, "no dependencies": true, "no external dependencies": true,
	"no third-party packages": true, "no external packages": true,
	"standard library": true, "standard library only": true, "only the standard library": true,
}

// stdlib lists standard-library modules that models often list as
// requirements although nothing needs installing.
var stdlib = map[string]bool{
	"abc": true, "array": true, "bisect": true, "cmath": true, "collections": true,
	"copy": true, "dataclasses": true, "datetime": true, "decimal": true, "enum": true,
	"fractions": true, "functools": true, "hashlib": true, "heapq": true, "itertools": true,
	"json": true, "math": true, "operator": true, "os": true, "queue": true, "random": true,
	"re": true, "statistics": true, "string": true, "sys": true, "time": true, "typing": true,
	"unittest": true,
}

// parseRequirements reads the requirements section: the first paragraph of
// its lines, comma separated or one per line, with bullets, quotes,
// "pip install" and trailing notes removed. "None" and its variants give
// nil. Items that are not package specifiers, and standard-library modules,
// are dropped and reported in ignored.
func parseRequirements(lines []string) (reqs, ignored []string) {
	var para []string
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			if len(para) > 0 {
				break
			}
			continue
		}
		para = append(para, l)
	}
	seen := map[string]bool{}
	for _, line := range para {
		for _, item := range strings.Split(line, ",") {
			for _, item := range splitItem(item) {
				key := strings.ToLower(item)
				switch {
				case item == "" || noneWords[key] || strings.HasPrefix(key, "none ") || seen[key]:
				case stdlib[key] || !packageRE.MatchString(item):
					ignored = append(ignored, item)
				default:
					seen[key] = true
					reqs = append(reqs, item)
				}
			}
		}
	}
	return reqs, ignored
}

// splitItem cleans one comma-separated item; an install command may name
// several packages.
func splitItem(item string) []string {
	item = strings.TrimSpace(item)
	item = bulletRE.ReplaceAllString(item, "")
	item = strings.Trim(item, "`'\"* \t")
	item = strings.TrimRight(item, ".;")
	for _, sep := range []string{" - ", " – ", ": ", " #"} {
		item, _, _ = strings.Cut(item, sep) // "numpy - for arrays"
	}
	item = strings.TrimSpace(noteRE.ReplaceAllString(item, ""))
	if rest := pipRE.ReplaceAllString(item, ""); rest != item {
		return strings.Fields(strings.Trim(rest, "`'\""))
	}
	return []string{strings.Trim(item, "`'\"")}
}
