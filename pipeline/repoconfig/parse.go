package repoconfig

import (
	"bytes"
	"errors"
	"io"

	"gopkg.in/yaml.v3"
)

// Parse parses the configuration file called name (used in messages and as
// the result's Source) whose content is data. An empty file, or one of only
// comments, is the defaults. Every problem found is reported, in line order,
// as a *ParseError joined with errors.Join.
func Parse(name string, data []byte) (Config, error) {
	if len(data) > MaxSize {
		return Config{}, &ParseError{File: name, Msg: "file is larger than the 64 KiB limit"}
	}
	root, err := document(name, data)
	if err != nil {
		return Config{}, err
	}
	c := Default()
	c.Source = name
	if root == nil {
		return c, nil
	}
	p := &problems{file: name}
	decode(p, &c, root)
	if err := p.err(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// document parses data as a single YAML document holding a mapping, and
// returns that mapping, or nil when the document is empty.
func document(name string, data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
		return nil, nil
	} else if err != nil {
		return nil, syntaxError(name, data, err)
	}
	var next yaml.Node
	if err := dec.Decode(&next); err == nil {
		return nil, &ParseError{File: name, Line: next.Line, Msg: "a second YAML document; the file must hold only one"}
	} else if !errors.Is(err, io.EOF) {
		return nil, syntaxError(name, data, err)
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	root := resolve(doc.Content[0])
	switch {
	case root.Kind == yaml.MappingNode:
		return root, nil
	case root.Kind == yaml.ScalarNode && root.Tag == "!!null" && root.Value == "":
		return nil, nil // "---" and nothing else
	}
	return nil, &ParseError{File: name, Line: root.Line,
		Msg: "expected a mapping of keys to values, such as \"test: make test\", got " + describe(root)}
}

// decode sets c's fields from the keys of mapping m.
func decode(p *problems, c *Config, m *yaml.Node) {
	seen := make(map[string]int) // key -> line
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], resolve(m.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			p.add(k, "", "expected a key name, got %s", describe(k))
			continue
		}
		key := k.Value
		if line, dup := seen[key]; dup {
			p.add(k, key, "duplicate key %q (first on line %d)", shorten(key, 40), line)
			continue
		}
		seen[key] = k.Line
		f, ok := lookup(key)
		if !ok {
			p.add(k, key, "unknown key %q%s", shorten(key, 40), suggest(key))
			continue
		}
		f.set(c, value{p: p, key: key, n: v})
	}
}

// resolve follows an alias to the node it names, keeping the alias's
// position so that problems point at the place of use.
func resolve(n *yaml.Node) *yaml.Node {
	if n.Kind != yaml.AliasNode || n.Alias == nil {
		return n
	}
	r := *resolve(n.Alias)
	r.Line, r.Column = n.Line, n.Column
	return &r
}
