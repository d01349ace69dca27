package repoconfig

import (
	"encoding/json"
	"fmt"
	"io/fs"
)

// packageJSON is what Capsule reads of a package.json.
type packageJSON struct {
	Scripts         map[string]any `json:"scripts"`
	DevDependencies map[string]any `json:"devDependencies"`
	Dependencies    map[string]any `json:"dependencies"`
	// PackageManager is Corepack's field: the manager and its version
	// the project asks for, "yarn@4.1.0".
	PackageManager string `json:"packageManager"`
}

// readPackageJSON reads the package.json at the root of fsys, bounded.
func readPackageJSON(fsys fs.FS) (packageJSON, error) {
	var pkg packageJSON
	data, err := readFile(fsys, "package.json", maxReadSize)
	if err != nil {
		return pkg, fmt.Errorf("read package.json: %w", err)
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		return pkg, fmt.Errorf("parse package.json: %w", err)
	}
	return pkg, nil
}

// NodeFramework names the test framework of the package.json at the root
// of fsys, "Jest" or "Vitest", from its test script or else its
// dependencies; "" when it names neither, or there is no readable
// package.json.
func NodeFramework(fsys fs.FS) string {
	pkg, err := readPackageJSON(fsys)
	if err != nil {
		return ""
	}
	test, _ := pkg.Scripts["test"].(string)
	runner, _ := nodeRunner(test, pkg.DevDependencies, pkg.Dependencies)
	return runner
}
