package repocontext

import "testing"

// BenchmarkLookup10k times a request's lookups on the synthetic
// repository of 10,000 files (see BenchmarkBuild10k): opening it (the
// walk, once a job), a file, a dotted definition (every source file
// read) and a search that matches in every module (every text file
// read).
func BenchmarkLookup10k(b *testing.B) {
	dir := b.TempDir()
	if n := synthRepo(b, dir); n < 10000 {
		b.Fatalf("synthetic repository has %d files, want 10,000", n)
	}
	l, err := OpenLookup(dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	for _, bc := range []struct {
		name string
		look func() Found
	}{
		{"open", func() Found {
			o, err := OpenLookup(dir, Options{})
			if err != nil {
				b.Fatal(err)
			}
			o.Close()
			return Found{Text: "walked"}
		}},
		{"file", func() Found { return l.File("src/pkg07/sub2/mod13.py", 0, 0, 8000) }},
		{"definition", func() Found { return l.Definition("Model7213.run", 8000) }},
		{"search", func() Found { return l.Search("os.environ.get('CAP'", 8000) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if f := bc.look(); f.Text == "" {
					b.Fatalf("nothing shown: %+v", f)
				}
			}
		})
	}
}
