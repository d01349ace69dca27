package fakegithub

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// segment is one "/"-separated piece of a path template.
//
// kin-openapi's routers match each {param} against exactly one segment, but
// GitHub marks some parameters x-multi-segment: a ref such as "heads/main",
// a file path such as "src/calc.py". go-github sends those with literal
// slashes (GET /repos/o/r/git/ref/heads/main), so the fake routes itself.
type segment struct {
	literal string         // a literal segment, when param and re are empty
	param   string         // a whole-segment {param}
	multi   bool           // param may span several segments
	re      *regexp.Regexp // a segment mixing text and params, like {base}...{head}
	names   []string       // the params of re, in order
}

// kind orders segments by how specific they are: literals first.
func (s segment) kind() int {
	switch {
	case s.re != nil:
		return 1
	case s.multi:
		return 3
	case s.param != "":
		return 2
	default:
		return 0
	}
}

var templateParam = regexp.MustCompile(`\{([^{}]+)\}`)

// parseTemplate splits an OpenAPI path template into segments; multi names
// the parameters that may span segments.
func parseTemplate(template string, multi map[string]bool) ([]segment, error) {
	if !strings.HasPrefix(template, "/") {
		return nil, fmt.Errorf("template %q does not start with /", template)
	}
	var segs []segment
	for _, part := range strings.Split(template[1:], "/") {
		locs := templateParam.FindAllStringSubmatchIndex(part, -1)
		switch {
		case len(locs) == 0:
			segs = append(segs, segment{literal: part})
		case len(locs) == 1 && locs[0][0] == 0 && locs[0][1] == len(part):
			name := part[1 : len(part)-1]
			segs = append(segs, segment{param: name, multi: multi[name]})
		default:
			var re strings.Builder
			var names []string
			re.WriteString("^")
			prev := 0
			for _, l := range locs {
				re.WriteString(regexp.QuoteMeta(part[prev:l[0]]))
				re.WriteString("(.+?)")
				names = append(names, part[l[2]:l[3]])
				prev = l[1]
			}
			re.WriteString(regexp.QuoteMeta(part[prev:]))
			re.WriteString("$")
			segs = append(segs, segment{re: regexp.MustCompile(re.String()), names: names})
		}
	}
	return segs, nil
}

// match matches the escaped request path parts against the segments and
// returns the (unescaped) path parameters.
func match(segs []segment, parts []string) (map[string]string, bool) {
	params := map[string]string{}
	if !matchFrom(segs, parts, params) {
		return nil, false
	}
	return params, true
}

func matchFrom(segs []segment, parts []string, params map[string]string) bool {
	if len(segs) == 0 {
		return len(parts) == 0
	}
	if len(parts) == 0 {
		return false
	}
	s := segs[0]
	switch {
	case s.multi:
		for n := len(parts); n >= 1; n-- {
			if !matchFrom(segs[1:], parts[n:], params) {
				continue
			}
			values := make([]string, n)
			for i, p := range parts[:n] {
				v, ok := unescape(p)
				if !ok {
					return false
				}
				values[i] = v
			}
			value := strings.Join(values, "/")
			if value == "" {
				return false
			}
			params[s.param] = value
			return true
		}
		return false
	case s.re != nil:
		v, ok := unescape(parts[0])
		if !ok {
			return false
		}
		m := s.re.FindStringSubmatch(v)
		if m == nil {
			return false
		}
		for i, name := range s.names {
			params[name] = m[i+1]
		}
	case s.param != "":
		v, ok := unescape(parts[0])
		if !ok || v == "" {
			return false
		}
		params[s.param] = v
	default:
		if v, ok := unescape(parts[0]); !ok || v != s.literal {
			return false
		}
	}
	return matchFrom(segs[1:], parts[1:], params)
}

func unescape(s string) (string, bool) {
	v, err := url.PathUnescape(s)
	return v, err == nil
}

// moreSpecific reports whether template segments a should win over b when
// both match a request: literal beats mixed beats {param} beats multi-segment
// {param}, segment by segment.
func moreSpecific(a, b []segment) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if ka, kb := a[i].kind(), b[i].kind(); ka != kb {
			return ka < kb
		}
	}
	return len(a) > len(b)
}

// find returns the path of the description that escapedPath (a request's
// URL.EscapedPath, without any enterprise prefix) belongs to, with its path
// parameters, or nil.
func (d *description) find(escapedPath string) (*pathEntry, map[string]string) {
	if !strings.HasPrefix(escapedPath, "/") {
		return nil, nil
	}
	parts := strings.Split(escapedPath[1:], "/")
	var best *pathEntry
	var bestParams map[string]string
	for _, e := range d.paths {
		params, ok := match(e.segs, parts)
		if !ok {
			continue
		}
		if best == nil || moreSpecific(e.segs, best.segs) {
			best, bestParams = e, params
		}
	}
	return best, bestParams
}
