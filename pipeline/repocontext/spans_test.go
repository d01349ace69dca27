package repocontext

import (
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// storeIssue names two functions of the large fixture and quotes a
// traceback through them.
var storeIssue = Issue{
	Title: "`bulk_restock` stops at a negative line",
	Body:  "```\n  File \"inventory/store.py\", line 355, in bulk_restock\n  File \"inventory/store.py\", line 336, in restock\n```\n",
}

func TestFindSpans(t *testing.T) {
	src, err := os.ReadFile("testdata/large/inventory/store.py")
	if err != nil {
		t.Fatal(err)
	}
	o := parsePython(src)
	tests := []struct {
		name   string
		names  []string
		lines  []int
		quoted []int
		words  map[string]float64
		top    bool
		want   []string
	}{
		{
			name:  "a named function, its callee and its caller",
			names: []string{"restock"},
			want: []string{
				"327-341 defines restock",
				"321-330 called in lines 335-338",
				"348-359 uses restock",
			},
		},
		{
			name:  "traceback lines, outside any def too",
			lines: []int{355, 12, 9999},
			want: []string{
				"348-359 line 355 in the traceback",
				"1-25 line 12 in the traceback",
			},
		},
		{
			name:  "a short class whole, a nested one too",
			names: []string{"Store", "Audit"},
			want: []string{
				"297-324 defines Store",
				"304-317 defines Audit",
			},
		},
		{
			name:   "quoted lines before traceback lines",
			lines:  []int{355},
			quoted: []int{330},
			want: []string{
				"327-341 line 330 quoted in the issue",
				"348-359 line 355 in the traceback",
			},
		},
		{
			name:  "a file the issue points at: its imports, then the words of the issue",
			words: map[string]float64{"remote": 2, "sent": 1, "fruit": 3},
			top:   true,
			want: []string{
				"7-19 imports",
				"356-369 holds words of the issue: fruit, remote, sent",
				"25-34 holds words of the issue: fruit", // in its name
			},
		},
		{
			name:  "no words: the imports only",
			words: map[string]float64{"nowhere": 1},
			top:   true,
			want:  []string{"7-19 imports"},
		},
		{
			name:  "a neighbour: no imports, no words, so no spans",
			words: map[string]float64{"remote": 2, "sent": 1, "fruit": 3},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			names := make(map[string]bool)
			for _, n := range tt.names {
				names[n] = true
			}
			var got []string
			for _, c := range findSpans(o, spanQuery{names: names, lines: tt.lines, quoted: tt.quoted, words: tt.words, top: tt.top}) {
				got = append(got, c.lineRange.String()+" "+c.why)
			}
			if len(tt.want) > 0 && len(got) > len(tt.want) {
				got = got[:len(tt.want)] // the first spans are the ones that matter
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("spans:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestLongClassShowsConstructor checks that a class too long to show
// whole is shown by its header and its constructor.
func TestLongClassShowsConstructor(t *testing.T) {
	var src strings.Builder
	src.WriteString("class Big:\n    \"\"\"A long class.\"\"\"\n\n    def __init__(self, x):\n        self.x = x\n\n")
	for i := range 60 {
		fmt.Fprintf(&src, "    def m%d(self):\n        return %d\n\n", i, i)
	}
	o := parsePython([]byte(src.String()))
	var got []string
	for _, c := range findSpans(o, spanQuery{names: map[string]bool{"Big": true}}) {
		got = append(got, c.lineRange.String()+" "+c.why)
	}
	want := []string{"1-6 defines Big", "1-8 constructor of Big"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("spans:\n got %q\nwant %q", got, want)
	}
}

// TestImportsSpan checks the head a file the issue points at shows: its
// import blocks up to the first top-level def or class, or the last
// maxImportLines lines of a longer head, each with three lines around.
func TestImportsSpan(t *testing.T) {
	many := func(from, n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "import m%d\n", from+i)
		}
		return b.String()
	}
	tests := []struct {
		name, src, want string
	}{
		{
			name: "one block",
			src:  "\"\"\"Doc.\"\"\"\nimport os\nimport sys\n\n\ndef f():\n    pass\n",
			want: "1-6 imports", // lines 2-3 and three lines around
		},
		{
			name: "blocks split by a constant and TYPE_CHECKING, up to the first def",
			src: "import os\n\nLIMIT = 3\n\nfrom calc import ops\n\nif TYPE_CHECKING:\n    from calc import x\n\n" +
				"from calc.base import Base\n\n\nclass C(Base):\n    pass\n\nimport late\n",
			want: "1-13 imports",
		},
		{
			name: "a long head: its last lines",
			src:  many(0, 30) + "\nX = 1\n\n" + many(30, 90) + "\n\ndef f():\n    pass\n",
			want: "21-126 imports", // lines 24-123 of 1-123
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spans := findSpans(parsePython([]byte(tt.src)), spanQuery{top: true})
			if len(spans) == 0 {
				t.Fatal("no spans")
			}
			if got := spans[0].lineRange.String() + " " + spans[0].why; got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// spanHeader matches the line above a span's fenced block.
var spanHeader = regexp.MustCompile(`(?m)^Lines (\d+)(?:-(\d+))? \(.*\):\n(` + "`{3,}" + `)python\n`)

// TestSpansQuoteExactly builds the large fixture's context at many
// budgets and checks what an edit quoting the context relies on: each
// span's block holds exactly the file's lines its header names, the spans
// and marks of omitted lines cover the file in order, and the budget
// holds.
func TestSpansQuoteExactly(t *testing.T) {
	data, err := os.ReadFile("testdata/large/inventory/store.py")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	issueTokens := EstimateTokens(storeIssue.Title + "\n\n" + storeIssue.Body)
	partial := 0
	for budget := 600; budget <= 6000; budget += 150 {
		ctx, err := Build("testdata/large", storeIssue, Options{Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		if ctx.Tokens > budget {
			t.Errorf("budget %d: Tokens = %d", budget, ctx.Tokens)
		}
		if ctx.Tokens != issueTokens+EstimateTokens(ctx.Text) {
			t.Errorf("budget %d: Tokens = %d, want %d", budget, ctx.Tokens, issueTokens+EstimateTokens(ctx.Text))
		}
		in := includedFile(ctx, "inventory/store.py")
		if in == nil || in.Whole() {
			continue
		}
		partial++
		section := ctx.Text[strings.Index(ctx.Text, "\n### inventory/store.py"):]
		if next := strings.Index(section[1:], "\n### "); next >= 0 {
			section = section[:next+1]
		}
		var shown []Span
		for _, m := range spanHeader.FindAllStringSubmatchIndex(section, -1) {
			start, _ := strconv.Atoi(section[m[2]:m[3]])
			end := start
			if m[4] >= 0 {
				end, _ = strconv.Atoi(section[m[4]:m[5]])
			}
			fence := section[m[6]:m[7]]
			body, _, ok := strings.Cut(section[m[1]:], "\n"+fence+"\n")
			if want := strings.Join(lines[start-1:end], "\n"); !ok || body != want {
				t.Fatalf("budget %d: the block of lines %d-%d is not the file's text:\n%s", budget, start, end, body)
			}
			shown = append(shown, Span{Start: start, End: end})
		}
		if len(shown) != len(in.Spans) {
			t.Fatalf("budget %d: %d blocks for spans %v", budget, len(shown), in.Spans)
		}
		next := 1
		for k, s := range in.Spans {
			if s.Start != shown[k].Start || s.End != shown[k].End || s.Start < next {
				t.Errorf("budget %d: span %v, block %v, after line %d", budget, s, shown[k], next-1)
			}
			if s.Start > next && !strings.Contains(section, fmt.Sprintf("⋮ lines %s omitted\n", lineRange{next, s.Start - 1})) {
				t.Errorf("budget %d: no mark for lines %d-%d", budget, next, s.Start-1)
			}
			next = s.End + 1
		}
	}
	if partial == 0 {
		t.Error("no budget showed the large file in part")
	}
}

// includedFile returns the included file at path, or nil.
func includedFile(ctx Context, path string) *Included {
	for k := range ctx.Included {
		if ctx.Included[k].Path == path {
			return &ctx.Included[k]
		}
	}
	return nil
}

func TestLargeFiles(t *testing.T) {
	var b strings.Builder
	b.WriteString("class Big:\n    \"\"\"A class too long to show whole.\"\"\"\n")
	for i := range 151 {
		fmt.Fprintf(&b, "\n    def m%d(self):\n        \"\"\"Return %d, as the tests expect.\"\"\"\n        return %d\n", i, i, i)
	}
	longClass := b.String()
	big := "def first():\n    return 1\n" + strings.Repeat("# filler line of a long module\n", 400) + "def last():\n    return 2\n"
	notes := strings.Repeat("A line of notes that runs on and on.\n", 600)
	tests := []struct {
		name   string
		files  map[string]string
		title  string
		budget int
		want   string // Included[0].String()
	}{
		{
			name:   "a named def in a large file",
			files:  map[string]string{"big.py": big},
			title:  "`last` returns 2",
			budget: 3000,
			want:   "big.py (defines last): 404 lines; the outline; lines 400-404 (defines last)",
		},
		{
			name:   "shown whole when the budget leaves room",
			files:  map[string]string{"big.py": big},
			title:  "`last` returns 2",
			budget: 8000,
			want:   "big.py (defines last)",
		},
		{
			name:   "another language: head and tail",
			files:  map[string]string{"notes.txt": notes},
			title:  "see notes.txt",
			budget: 3000,
			want:   "notes.txt (named in the issue): 600 lines; lines 1-162 (head of the file); lines 547-600 (tail of the file)",
		},
		{
			name:   "a Python file with nothing to outline: head and tail",
			files:  map[string]string{"broken.py": "x = '''\n" + notes},
			title:  "see broken.py",
			budget: 3000,
			want:   "broken.py (named in the issue): 601 lines; lines 1-162 (head of the file); lines 547-601 (tail of the file)",
		},
		{
			name:   "a long class shows its header, then the named method",
			files:  map[string]string{"big.py": longClass},
			title:  "`Big.m150` fails",
			budget: 3000,
			want:   "big.py (defines Big, m150): 606 lines; the outline; lines 1-6 (defines Big); lines 601-606 (defines m150)",
		},
		{
			name:   "the old way: whole files only",
			files:  map[string]string{"big.py": big, "README.md": "# big\n"},
			title:  "`last` returns 2",
			budget: 3000,
			want:   "README.md (project README)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := Options{Budget: tt.budget, WholeFiles: strings.HasPrefix(tt.name, "the old way")}
			ctx, err := Build(writeRepo(t, tt.files), Issue{Title: tt.title}, opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(ctx.Included) == 0 {
				t.Fatalf("nothing included; omitted %q", omittedPaths(ctx))
			}
			if got := ctx.Included[0].String(); got != tt.want {
				t.Errorf("Included[0] = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestQueryTerms(t *testing.T) {
	got, inTitle := queryTerms(Issue{Title: "Fix parseHTTPHeaders for multiline values", Body: "The `header_values` of a Request are lost when it has headers."})
	want := []string{"parse", "httpheader", "multiline", "header", "request", "lost"}
	if !reflect.DeepEqual(got, want) || inTitle != 3 {
		t.Errorf("queryTerms = %q, %d from the title; want %q, 3", got, inTitle, want)
	}
}

// TestNamedAndBestSpans checks the marks placeLarge reads: a span of the
// repository's best functions is marked best, and one whose code
// mentions a name the issue names is marked named, whatever picked it.
func TestNamedAndBestSpans(t *testing.T) {
	src, err := os.ReadFile("testdata/large/inventory/store.py")
	if err != nil {
		t.Fatal(err)
	}
	o := parsePython(src)
	best := []repoDef{{lineRange: lineRange{341, 348}, name: "sell", hits: []string{"quantity", "sku"}}}
	var got []string
	for _, c := range findSpans(o, spanQuery{names: map[string]bool{"restock": true}, best: best}) {
		got = append(got, fmt.Sprintf("%s best=%v named=%v", c.lineRange, c.best, c.named))
	}
	want := []string{
		"338-351 best=true named=false",  // sell
		"327-341 best=false named=false", // defines restock: named by its def line only
		"321-330 best=false named=false", // _validate_quantity, called by both
		"348-359 best=false named=true",  // bulk_restock calls restock
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("spans:\n got %q\nwant %q", got, want)
	}
}

// TestClassBlocks checks that a class's own lines, outside its methods and
// nested classes, are counted in paragraphs split at blank lines.
func TestClassBlocks(t *testing.T) {
	src := `class Loop:
    """An event loop.

    It runs callbacks until stopped.
    """

    _current = None
    _instances = {}

    def start(self):
        pass

    class Timer:
        """A timer."""

    limit = 5
`
	o := parsePython([]byte(src))
	var got []string
	for _, b := range classBlocks(o, 0, map[string]float64{"callback": 1, "stopped": 1, "timer": 1}) {
		got = append(got, fmt.Sprintf("%s %v", b.r, b.tf))
	}
	want := []string{
		"2 map[]",
		"4-5 map[callback:1 stopped:1]",
		"7-8 map[]",
		"16 map[]",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("blocks:\n got %q\nwant %q", got, want)
	}
}

// TestLongClassShowsWordBlocks checks that a class too long to show whole
// also shows the paragraphs of its docstring and its class-level lines
// below its header that hold the words of the issue best.
func TestLongClassShowsWordBlocks(t *testing.T) {
	var src strings.Builder
	src.WriteString("class Big:\n    \"\"\"A long class.\n\n")
	for i := range 20 {
		fmt.Fprintf(&src, "    Paragraph %d of the docstring.\n\n", i)
	}
	src.WriteString("    Do not construct it directly: use current() instead.\n    \"\"\"\n\n    deprecated_construct = True\n\n")
	for i := range 60 {
		fmt.Fprintf(&src, "    def m%d(self):\n        return %d\n\n", i, i)
	}
	o := parsePython([]byte(src.String()))
	var got []string
	words := map[string]float64{"construct": 1, "current": 1, "deprecated": 1, "paragraph": 0.1}
	for _, c := range findSpans(o, spanQuery{names: map[string]bool{"Big": true}, words: words}) {
		got = append(got, c.lineRange.String()+" "+c.why)
	}
	want := []string{
		"1-19 defines Big",
		"44-50 holds words of the issue in Big: construct, deprecated",
		"41-48 holds words of the issue in Big: construct, current",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("spans:\n got %q\nwant %q", got, want)
	}
}
