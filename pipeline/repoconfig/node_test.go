package repoconfig

import (
	"testing"
	"testing/fstest"
)

func TestNodeFramework(t *testing.T) {
	for _, tc := range []struct {
		name, pkg, want string
	}{
		{"script runs vitest", `{"scripts": {"test": "vitest run"}}`, "Vitest"},
		{"script runs jest by path", `{"scripts": {"test": "node node_modules/.bin/jest --ci"}}`, "Jest"},
		{"a dependency", `{"scripts": {"test": "npm run build && run-tests"}, "devDependencies": {"jest": "^29"}}`, "Jest"},
		{"neither", `{"scripts": {"test": "mocha"}}`, ""},
		{"not JSON", `{"scripts": `, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := NodeFramework(fstest.MapFS{"package.json": {Data: []byte(tc.pkg)}}); got != tc.want {
				t.Errorf("NodeFramework = %q, want %q", got, tc.want)
			}
		})
	}
	if got := NodeFramework(fstest.MapFS{}); got != "" {
		t.Errorf("without package.json: %q", got)
	}
}
