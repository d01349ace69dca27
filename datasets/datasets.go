// Package datasets holds the benchmark data Capsule carries, each folder
// with the files as published (large JSON stored gzip-compressed), its
// SOURCE.txt and its licence.
//
// The datasets that `capsule bench --dataset NAME` runs by name are embedded
// in the binary, so an installed binary needs no data folder. The folders
// hold more variants than the binary embeds (EvalPlus's Mini and NoExtreme
// files, another MBPP-ET copy); the tests read those from the repository.
package datasets

import (
	"bytes"
	"compress/gzip"
	"embed"
	"fmt"
	"io"
	"strings"
)

// files holds the shipped datasets with their sources and licences, which
// travel with every copy of the binary.
//
//go:embed humaneval/HumanEval.jsonl.gz humaneval/SOURCE.txt humaneval/LICENSE.*
//go:embed humaneval_et/HumanEvalET.jsonl.gz humaneval_et/SOURCE.txt humaneval_et/LICENSE.*
//go:embed mbpp/sanitized-mbpp.json.gz mbpp/mbpp.jsonl.gz mbpp/SOURCE.txt mbpp/LICENSE.*
//go:embed mbpp_et/MBPP_ET.sanitized427.chatdev.jsonl.gz mbpp_et/SOURCE.txt mbpp_et/LICENSE.*
//go:embed evalplus/HumanEvalPlus.jsonl.gz evalplus/MbppPlus-OriginFmt.jsonl.gz evalplus/SOURCE.txt evalplus/LICENSE.*
//go:embed bigcodebench/BigCodeBench.jsonl.gz bigcodebench/SOURCE.txt bigcodebench/LICENSE.*
//go:embed reference-times
var files embed.FS

// Dataset is one dataset shipped in the binary.
type Dataset struct {
	// Name is what `capsule bench --dataset` takes.
	Name string
	// File is the dataset's path under datasets/.
	File string
	// Problems is how many problems the file holds.
	Problems int
	// Unsound is how many of them have evaluation tests that their own
	// reference solution fails upstream; they count as unsolved.
	Unsound int
	// Title says what the dataset is.
	Title string
	// License is the licence the data is published under; the folder holds
	// its text.
	License string
	// Source is the GitHub repository and commit the file comes from; the
	// folder's SOURCE.txt has the details.
	Source string
	// References names the shipped dataset whose reference solutions stand
	// in for this one's, matched by task id, when the file has none.
	References string
}

// all lists the shipped datasets. Where upstream publishes several
// variants, the name means the one the benchmark is usually reported on
// that Capsule can score (see the README).
var all = []Dataset{
	{"humaneval", "humaneval/HumanEval.jsonl.gz", 164, 0,
		"HumanEval", "MIT", "openai/human-eval@6d43fb9", ""},
	{"humaneval-et", "humaneval_et/HumanEvalET.jsonl.gz", 164, 6,
		"HumanEval-ET (CodeScore)", "MIT", "Md-Ashraful-Pramanik/MapCoder@0027da7", ""},
	{"humaneval-plus", "evalplus/HumanEvalPlus.jsonl.gz", 164, 0,
		"HumanEval+ v0.1.10 (EvalPlus)", "Apache-2.0", "evalplus/humanevalplus_release@200defc", ""},
	{"mbpp", "mbpp/sanitized-mbpp.json.gz", 427, 0,
		"MBPP, sanitized", "CC-BY-4.0", "google-research mbpp/, via SeanCho1996/ChatDev@a83d24c", ""},
	{"mbpp-full", "mbpp/mbpp.jsonl.gz", 974, 0,
		"MBPP, every task", "CC-BY-4.0", "google-research mbpp/, via patdfb/TPC-EES@30c8c57", ""},
	{"mbpp-et", "mbpp_et/MBPP_ET.sanitized427.chatdev.jsonl.gz", 427, 16,
		"MBPP-ET (CodeScore), sanitized tasks", "Apache-2.0", "SeanCho1996/ChatDev@a83d24c", "mbpp-full"},
	{"mbpp-plus", "evalplus/MbppPlus-OriginFmt.jsonl.gz", 378, 0,
		"MBPP+ v0.2.0 (EvalPlus)", "Apache-2.0", "evalplus/mbppplus_release@dadf43d", ""},
	{"bigcodebench", "bigcodebench/BigCodeBench.jsonl.gz", 1140, 0,
		"BigCodeBench v0.1, instruct split", "Apache-2.0", "bigcode-project/bigcodebench-annotation@a3b8985", ""},
}

// All returns the shipped datasets.
func All() []Dataset {
	return append([]Dataset(nil), all...)
}

// Lookup returns the shipped dataset called name.
func Lookup(name string) (Dataset, bool) {
	for _, d := range all {
		if d.Name == name {
			return d, true
		}
	}
	return Dataset{}, false
}

// Names returns the names of the shipped datasets, comma-separated.
func Names() string {
	names := make([]string, len(all))
	for i, d := range all {
		names[i] = d.Name
	}
	return strings.Join(names, ", ")
}

// Open returns the dataset's file, decompressed.
func (d Dataset) Open() (io.ReadCloser, error) {
	data, err := files.ReadFile(d.File)
	if err != nil {
		return nil, fmt.Errorf("dataset %s: %w", d.Name, err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("dataset %s: %s: %w", d.Name, d.File, err)
	}
	return zr, nil
}

// ReferenceTimes returns the dataset's shipped reference times
// (reference-times/NAME.json: each reference solution's CPU time on the
// evaluation tests, measured once in the sandbox, and the machine), or
// false when none are shipped.
func (d Dataset) ReferenceTimes() ([]byte, bool) {
	data, err := files.ReadFile("reference-times/" + d.Name + ".json")
	return data, err == nil
}
