package bench

import (
	"fmt"
	"os"

	"github.com/capsulehq/capsule/bench/dataset"
	"github.com/capsulehq/capsule/datasets"
	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/sandbox/image"
)

// BigCodeBenchMemory is the memory of a BigCodeBench problem's sandbox:
// its tasks load pandas, scikit-learn, matplotlib and the like together.
const BigCodeBenchMemory = 2 << 30

// SandboxFor returns the sandbox a dataset's problems run in unless told
// otherwise: the default image and limits, except for BigCodeBench, which
// needs the capsule-bigcodebench image with its libraries and
// BigCodeBenchMemory. The limits are the hardened defaults otherwise (no
// network, sandbox.DefaultPids processes and threads); the CPU time of
// each test run is bounded per problem from its reference solution.
func SandboxFor(dataset string) sandbox.Spec {
	spec := sandbox.Spec{Image: image.Default(), Limits: sandbox.DefaultLimits()}
	if dataset == "bigcodebench" {
		spec.Image = image.BigCodeBench.Ref()
		spec.Limits.Memory = BigCodeBenchMemory
	}
	return spec
}

// CheckDataset reports an error unless name is a shipped dataset (see
// package datasets) or an existing file; the error lists the shipped names.
func CheckDataset(name string) error {
	if _, ok := datasets.Lookup(name); ok {
		return nil
	}
	if _, err := os.Stat(name); err != nil {
		return fmt.Errorf("no shipped dataset named %q, and %w (shipped datasets: %s)", name, err, datasets.Names())
	}
	return nil
}

// LoadDataset loads the shipped dataset called name, or else the file at
// that path. A shipped dataset whose file has no reference solutions gets
// those of the dataset it names (datasets.Dataset.References), which size
// its time limits.
func LoadDataset(name string, format dataset.Format) (dataset.Set, error) {
	d, ok := datasets.Lookup(name)
	if !ok {
		if err := CheckDataset(name); err != nil {
			return dataset.Set{}, err
		}
		return dataset.Load(name, format)
	}
	set, err := readShipped(d, format)
	if err != nil || d.References == "" {
		return set, err
	}
	refs, ok := datasets.Lookup(d.References)
	if !ok {
		return dataset.Set{}, fmt.Errorf("dataset %s: its references come from %s, which is not shipped", d.Name, d.References)
	}
	from, err := readShipped(refs, dataset.Auto)
	if err != nil {
		return dataset.Set{}, err
	}
	set.TakeReferences(from)
	return set, nil
}

// readShipped reads a dataset shipped in the binary.
func readShipped(d datasets.Dataset, format dataset.Format) (dataset.Set, error) {
	r, err := d.Open()
	if err != nil {
		return dataset.Set{}, err
	}
	defer r.Close()
	return dataset.Read(d.File, r, format)
}
