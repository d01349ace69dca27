package fakegithub

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"

	"github.com/capsulehq/capsule/testsupport/testdata"
)

// description is GitHub's OpenAPI description, indexed so that routing needs
// no parsing and each path's operations are parsed by kin-openapi only the
// first time a request reaches that path (see objectMembers for why).
type description struct {
	head       map[string][]byte            // top-level "openapi" and "info"
	components map[string]map[string][]byte // section → name → raw JSON
	paths      []*pathEntry                 // in the description's order
	byTemplate map[string]*pathEntry
}

// pathEntry is one path of the description.
type pathEntry struct {
	template string
	segs     []segment
	raw      []byte
	methods  map[string]bool // upper-case HTTP methods
	desc     *description

	once sync.Once
	doc  *openapi3.T
	item *openapi3.PathItem
	err  error
}

// descriptionLoad is the result of loading one description file, shared by
// every fake in the process.
type descriptionLoad struct {
	once sync.Once
	d    *description
	err  error
	took time.Duration
}

var descriptions sync.Map // file name → *descriptionLoad

// loadDescription reads and indexes the description in file (gzipped when
// its name ends in .gz), or the built-in one (testdata.GitHubDescription)
// when file is empty, once per process.
func loadDescription(file string) (*description, time.Duration, error) {
	v, _ := descriptions.LoadOrStore(file, &descriptionLoad{})
	l := v.(*descriptionLoad)
	l.once.Do(func() {
		start := time.Now()
		l.d, l.err = readDescription(file)
		l.took = time.Since(start)
	})
	return l.d, l.took, l.err
}

func readDescription(file string) (*description, error) {
	var r io.Reader = bytes.NewReader(testdata.GitHubDescription)
	if file != "" {
		f, err := os.Open(file)
		if err != nil {
			return nil, fmt.Errorf("open the OpenAPI description: %w", err)
		}
		defer f.Close()
		r = f
	}
	if file == "" || strings.HasSuffix(file, ".gz") {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("gunzip %s: %w", file, err)
		}
		r = zr
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	d, err := indexDescription(data)
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", file, err)
	}
	return d, nil
}

// indexDescription splits a description into its paths and components.
func indexDescription(data []byte) (*description, error) {
	top, err := objectMembers(data)
	if err != nil {
		return nil, err
	}
	d := &description{
		head:       map[string][]byte{},
		components: map[string]map[string][]byte{},
		byTemplate: map[string]*pathEntry{},
	}
	var rawPaths []byte
	for _, m := range top {
		switch m.key {
		case "openapi", "info":
			d.head[m.key] = m.val
		case "paths":
			rawPaths = m.val
		case "components":
			sections, err := objectMembers(m.val)
			if err != nil {
				return nil, fmt.Errorf("components: %w", err)
			}
			for _, s := range sections {
				named, err := objectMembers(s.val)
				if err != nil {
					return nil, fmt.Errorf("components.%s: %w", s.key, err)
				}
				d.components[s.key] = make(map[string][]byte, len(named))
				for _, n := range named {
					d.components[s.key][n.key] = n.val
				}
			}
		}
	}
	if rawPaths == nil || d.head["openapi"] == nil {
		return nil, fmt.Errorf("not an OpenAPI description: no openapi or paths")
	}
	multi, err := multiSegmentComponents(d.components["parameters"])
	if err != nil {
		return nil, err
	}
	paths, err := objectMembers(rawPaths)
	if err != nil {
		return nil, fmt.Errorf("paths: %w", err)
	}
	for _, p := range paths {
		e, err := newPathEntry(d, p.key, p.val, multi)
		if err != nil {
			return nil, fmt.Errorf("path %s: %w", p.key, err)
		}
		d.paths = append(d.paths, e)
		d.byTemplate[p.key] = e
	}
	return d, nil
}

// paramDecl is the little of a parameter that routing needs.
type paramDecl struct {
	Name  string `json:"name"`
	In    string `json:"in"`
	Multi bool   `json:"x-multi-segment"`
}

// multiSegmentComponents maps each reusable path parameter marked with
// GitHub's x-multi-segment extension (a value that may contain slashes, such
// as a ref "heads/main" or a file path) to its name.
func multiSegmentComponents(params map[string][]byte) (map[string]string, error) {
	out := map[string]string{}
	for name, raw := range params {
		if !bytes.Contains(raw, []byte("x-multi-segment")) {
			continue
		}
		var p paramDecl
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, fmt.Errorf("components.parameters.%s: %w", name, err)
		}
		if p.In == "path" && p.Multi {
			out[name] = p.Name
		}
	}
	return out, nil
}

func newPathEntry(d *description, template string, raw []byte, multiComponents map[string]string) (*pathEntry, error) {
	e := &pathEntry{template: template, raw: raw, methods: map[string]bool{}, desc: d}
	ms, err := objectMembers(raw)
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		switch m.key {
		case "get", "put", "post", "delete", "options", "head", "patch", "trace":
			e.methods[strings.ToUpper(m.key)] = true
		}
	}
	multi := map[string]bool{}
	for _, ref := range componentRefs(raw) {
		if ref.section == "parameters" {
			if name, ok := multiComponents[ref.name]; ok {
				multi[name] = true
			}
		}
	}
	if bytes.Contains(raw, []byte("x-multi-segment")) {
		if err := inlineMultiSegment(ms, multi); err != nil {
			return nil, err
		}
	}
	e.segs, err = parseTemplate(template, multi)
	if err != nil {
		return nil, err
	}
	return e, nil
}

// inlineMultiSegment adds the inline path parameters of a path item marked
// x-multi-segment to multi.
func inlineMultiSegment(item []member, multi map[string]bool) error {
	type operation struct {
		Parameters []paramDecl `json:"parameters"`
	}
	for _, m := range item {
		var decls []paramDecl
		if m.key == "parameters" {
			if err := json.Unmarshal(m.val, &decls); err != nil {
				return fmt.Errorf("parameters: %w", err)
			}
		} else if m.val[0] == '{' {
			var op operation
			if err := json.Unmarshal(m.val, &op); err != nil {
				return fmt.Errorf("%s: %w", m.key, err)
			}
			decls = op.Parameters
		}
		for _, p := range decls {
			if p.In == "path" && p.Multi {
				multi[p.Name] = true
			}
		}
	}
	return nil
}

// componentRef is a "#/components/<section>/<name>" reference.
type componentRef struct{ section, name string }

// componentRefs lists the local component references in raw JSON.
func componentRefs(raw []byte) []componentRef {
	const marker = `"#/components/`
	var out []componentRef
	for {
		k := bytes.Index(raw, []byte(marker))
		if k < 0 {
			return out
		}
		raw = raw[k+len(marker):]
		end := bytes.IndexByte(raw, '"')
		if end < 0 {
			return out
		}
		section, name, ok := strings.Cut(string(raw[:end]), "/")
		raw = raw[end:]
		if !ok {
			continue
		}
		name = strings.NewReplacer("~1", "/", "~0", "~").Replace(name)
		out = append(out, componentRef{section: section, name: name})
	}
}

// route returns the kin-openapi route of method on this path, parsing the
// path's operations and the components they use on first use.
func (e *pathEntry) route(method string) (*routers.Route, error) {
	e.once.Do(func() { e.doc, e.item, e.err = e.desc.parsePath(e) })
	if e.err != nil {
		return nil, e.err
	}
	op := e.item.GetOperation(method)
	if op == nil {
		return nil, fmt.Errorf("%s %s is not in the description", method, e.template)
	}
	return &routers.Route{
		Spec:      e.doc,
		Path:      e.template,
		PathItem:  e.item,
		Method:    method,
		Operation: op,
	}, nil
}

// parsePath builds a small description holding only e's path item and the
// components it uses, transitively, and parses it with kin-openapi.
func (d *description) parsePath(e *pathEntry) (*openapi3.T, *openapi3.PathItem, error) {
	used := map[string]map[string][]byte{}
	queue := componentRefs(e.raw)
	for len(queue) > 0 {
		ref := queue[0]
		queue = queue[1:]
		if used[ref.section][ref.name] != nil {
			continue
		}
		raw := d.components[ref.section][ref.name]
		if raw == nil {
			return nil, nil, fmt.Errorf("path %s: dangling reference #/components/%s/%s", e.template, ref.section, ref.name)
		}
		if used[ref.section] == nil {
			used[ref.section] = map[string][]byte{}
		}
		used[ref.section][ref.name] = raw
		queue = append(queue, componentRefs(raw)...)
	}

	var buf bytes.Buffer
	buf.WriteString(`{"openapi":`)
	buf.Write(d.head["openapi"])
	buf.WriteString(`,"info":`)
	buf.Write(d.head["info"])
	buf.WriteString(`,"paths":{`)
	writeJSONKey(&buf, e.template)
	buf.Write(e.raw)
	buf.WriteString(`},"components":{`)
	for i, section := range sortedKeys(used) {
		if i > 0 {
			buf.WriteByte(',')
		}
		writeJSONKey(&buf, section)
		buf.WriteByte('{')
		for j, name := range sortedKeys(used[section]) {
			if j > 0 {
				buf.WriteByte(',')
			}
			writeJSONKey(&buf, name)
			buf.Write(used[section][name])
		}
		buf.WriteByte('}')
	}
	buf.WriteString(`}}`)

	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(buf.Bytes())
	if err != nil {
		return nil, nil, fmt.Errorf("parse path %s of the description: %w", e.template, err)
	}
	doc.Servers = nil
	item := doc.Paths.Value(e.template)
	if item == nil {
		return nil, nil, fmt.Errorf("path %s vanished while parsing", e.template)
	}
	return doc, item, nil
}

func writeJSONKey(buf *bytes.Buffer, key string) {
	b, _ := json.Marshal(key) // a string always marshals
	buf.Write(b)
	buf.WriteByte(':')
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
