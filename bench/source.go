package bench

import (
	"fmt"
	"os"

	"github.com/capsulehq/capsule/bench/dataset"
	"github.com/capsulehq/capsule/datasets"
)

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
// that path.
func LoadDataset(name string, format dataset.Format) (dataset.Set, error) {
	d, ok := datasets.Lookup(name)
	if !ok {
		if err := CheckDataset(name); err != nil {
			return dataset.Set{}, err
		}
		return dataset.Load(name, format)
	}
	r, err := d.Open()
	if err != nil {
		return dataset.Set{}, err
	}
	defer r.Close()
	return dataset.Read(d.File, r, format)
}
