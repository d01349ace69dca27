package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capsulehq/capsule/testsupport/goldenfile"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// summaries are the cases the table and chart are checked on.
var summaries = []struct {
	name string
	s    Summary
}{
	{"sample", Summarize("HumanEval-ET", "qwen2.5-coder-7b-instruct", sample(), 3, 754*time.Second)},
	{"none_solved", Summarize("MBPP", "tiny <test> & \"model\"", repeat(4, unsolved), 5, 3*time.Second)},
	{"empty", Summarize("MBPP-ET", "m", nil, 0, 0)},
	{"environment", Summarize("BigCodeBench", "m", append(sample(),
		Result{TaskID: "BigCodeBench/9", AttemptIndex: -1, Environment: "missing module: pandas"},
		Result{TaskID: "BigCodeBench/1005", AttemptIndex: -1, Environment: "network access: gaierror"},
		Result{TaskID: "BigCodeBench/201", AttemptIndex: -1, Environment: "missing module: faker"}), 5, 90*time.Second)},
}

func TestWriteTable(t *testing.T) {
	for _, tt := range summaries {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteTable(&b, tt.s); err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name+".txt", b.Bytes())
		})
	}
}

func TestWriteSVG(t *testing.T) {
	for _, tt := range summaries {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteSVG(&b, tt.s); err != nil {
				t.Fatal(err)
			}
			checkXML(t, b.Bytes())
			for _, want := range []string{esc(tt.s.Dataset), esc(tt.s.Model)} {
				if !strings.Contains(b.String(), want) {
					t.Errorf("chart lacks %q", want)
				}
			}
			golden(t, tt.name+".svg", b.Bytes())
		})
	}
}

func TestWriteErrors(t *testing.T) {
	s := summaries[0].s
	for name, write := range map[string]func(io.Writer, Summary) error{"table": WriteTable, "svg": WriteSVG} {
		if err := write(failingWriter{}, s); !errors.Is(err, errWrite) {
			t.Errorf("%s: error = %v, want %v", name, err, errWrite)
		}
	}
}

var errWrite = errors.New("disk full")

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errWrite }

// checkXML fails unless data is well-formed XML with an <svg> root.
func checkXML(t *testing.T, data []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	root := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = fmt.Sprintf("{%s}%s", se.Name.Space, se.Name.Local)
		}
	}
	if root != "{http://www.w3.org/2000/svg}svg" {
		t.Errorf("root element = %s, want svg in the SVG namespace", root)
	}
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), string(got), *update)
}

// A run given prices has a cost line in its table, after the tokens.
func TestWriteTablePriced(t *testing.T) {
	s := Summarize("HumanEval-ET", "qwen2.5-coder-7b-instruct", sample(), 3, 754*time.Second)
	usd := 0.0123
	s.CostUSD = &usd
	var b bytes.Buffer
	if err := WriteTable(&b, s); err != nil {
		t.Fatal(err)
	}
	golden(t, "priced.txt", b.Bytes())
}
