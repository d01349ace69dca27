package fakegithub

import (
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// completeResponse adds to v (plain JSON values) every property the
// operation's response schema for status requires and v lacks, with a
// neutral placeholder. The handlers set the fields the fake models; this
// keeps the rest of GitHub's large objects (a repository has 75 required
// fields) valid without spelling them all out.
func completeResponse(op *openapi3.Operation, status int, v any) any {
	if op == nil || op.Responses == nil {
		return v
	}
	resp := op.Responses.Status(status)
	if resp == nil {
		resp = op.Responses.Default()
	}
	if resp == nil || resp.Value == nil {
		return v
	}
	mt := resp.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil {
		return v
	}
	return fill(mt.Schema.Value, v, 0)
}

const maxFillDepth = 12

// fill completes v in place (and returns it) following schema s.
func fill(s *openapi3.Schema, v any, depth int) any {
	if s == nil || v == nil || depth > maxFillDepth {
		return v
	}
	for _, sub := range s.AllOf {
		v = fill(sub.Value, v, depth+1)
	}
	if alt := pickAlternative(s, v); alt != nil {
		v = fill(alt, v, depth+1)
	}
	switch x := v.(type) {
	case map[string]any:
		for _, name := range s.Required {
			if _, ok := x[name]; ok {
				continue
			}
			if p := s.Properties[name]; p != nil {
				x[name] = placeholder(p.Value, depth+1)
			}
		}
		for name, val := range x {
			if p := s.Properties[name]; p != nil {
				x[name] = fill(p.Value, val, depth+1)
			} else if ap := s.AdditionalProperties.Schema; ap != nil {
				x[name] = fill(ap.Value, val, depth+1)
			}
		}
	case []any:
		if s.Items != nil {
			for i := range x {
				x[i] = fill(s.Items.Value, x[i], depth+1)
			}
		}
	}
	return v
}

// pickAlternative returns the oneOf/anyOf alternative of s that v is meant
// to be: one of the same JSON type, sharing the most property names.
func pickAlternative(s *openapi3.Schema, v any) *openapi3.Schema {
	alts := append(append(openapi3.SchemaRefs{}, s.OneOf...), s.AnyOf...)
	var best *openapi3.Schema
	bestScore := -1
	for _, a := range alts {
		alt := a.Value
		if alt == nil {
			continue
		}
		score := -1
		switch x := v.(type) {
		case map[string]any:
			if alt.Type.Permits("object") || (alt.Type.IsEmpty() && len(alt.Properties) > 0) {
				score = 0
				for name := range x {
					if alt.Properties[name] != nil {
						score++
					}
				}
			}
		case []any:
			if alt.Type.Permits("array") {
				score = 0
			}
		}
		if score > bestScore {
			best, bestScore = alt, score
		}
	}
	return best
}

// placeholder is a neutral value valid for s: null where allowed, else the
// first enum value, zero, an empty string or array, or an object holding its
// required properties.
func placeholder(s *openapi3.Schema, depth int) any {
	if s == nil || s.Nullable || s.Type.IncludesNull() || depth > maxFillDepth {
		return nil
	}
	if len(s.Enum) > 0 {
		return s.Enum[0]
	}
	if len(s.AllOf) > 0 {
		m := map[string]any{}
		for _, sub := range s.AllOf {
			if sm, ok := placeholder(sub.Value, depth+1).(map[string]any); ok {
				for k, v := range sm {
					m[k] = v
				}
			}
		}
		return fill(s, m, depth)
	}
	if alts := append(append(openapi3.SchemaRefs{}, s.OneOf...), s.AnyOf...); len(alts) > 0 {
		for _, a := range alts {
			if a.Value != nil && (a.Value.Nullable || a.Value.Type.IncludesNull()) {
				return nil
			}
		}
		return placeholder(alts[0].Value, depth+1)
	}
	switch {
	case s.Type.Includes("string"):
		return placeholderString(s)
	case s.Type.Includes("integer"), s.Type.Includes("number"):
		if s.Min != nil {
			return *s.Min
		}
		return 0
	case s.Type.Includes("boolean"):
		return false
	case s.Type.Includes("array"):
		return []any{}
	case s.Type.Includes("object") || len(s.Properties) > 0:
		m := map[string]any{}
		for _, name := range s.Required {
			if p := s.Properties[name]; p != nil {
				m[name] = placeholder(p.Value, depth+1)
			}
		}
		return m
	}
	return nil
}

func placeholderString(s *openapi3.Schema) string {
	switch s.Format {
	case "date-time":
		return "1970-01-01T00:00:00Z"
	case "date":
		return "1970-01-01"
	case "uri", "url":
		return "https://example.invalid/"
	case "email":
		return "noreply@example.invalid"
	case "uuid":
		return "00000000-0000-0000-0000-000000000000"
	}
	if s.MinLength > 0 {
		return strings.Repeat("x", int(s.MinLength))
	}
	return ""
}
