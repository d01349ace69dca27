package repocontext

import (
	"strings"
	"testing"
)

// TestRetrieveWeighsTitle checks that a word of the issue's title counts
// titleBoost times a word of its body in ranking files, while the words'
// weights for spans stay their inverse document frequency.
func TestRetrieveWeighsTitle(t *testing.T) {
	files := map[string]string{
		"pkg/one.py": "def load(cache, shared):\n    return cache, shared\n",
		"pkg/two.py": "def wait(timeout, shared):\n    return timeout, shared\n",
	}
	for _, name := range []string{"a", "b", "c", "d"} {
		files["pkg/"+name+".py"] = "def " + name + "(x):\n    return x\n"
	}
	tests := []struct {
		title, body string
		want        []string
	}{
		{"Cache is stale", "The timeout is shared.", []string{"pkg/one.py", "pkg/two.py"}},
		{"Timeout is ignored", "The cache is shared.", []string{"pkg/two.py", "pkg/one.py"}},
	}
	r, err := openRepo(writeRepo(t, files), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	for _, tt := range tests {
		iss := Issue{Title: tt.title, Body: tt.body}
		terms, inTitle := queryTerms(iss)
		ret := retrieve(r, terms, inTitle, r.scan(nil, terms, parseIssue(iss)))
		var got []string
		for _, f := range ret.best(2) {
			got = append(got, r.files[f])
		}
		if strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("%q: files %q, want %q", tt.title, got, tt.want)
		}
		if ret.weights["cache"] != ret.weights["timeout"] || ret.ranking[terms[0]] != titleBoost*ret.weights[terms[0]] {
			t.Errorf("%q: weights %v, ranking %v; want the title's first word weighed %d times in ranking only", tt.title, ret.weights, ret.ranking, titleBoost)
		}
	}
}
