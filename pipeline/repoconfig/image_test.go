package repoconfig

import "testing"

func TestImageFor(t *testing.T) {
	tests := []struct {
		command, key, program string
	}{
		{pytestCommand, "", ""},
		{unittestCommand, "", ""},
		{goCommand, "go", "go"},
		{npmCommand, "node", "npm"},
		{"pnpm test", "node", "pnpm"},
		{"yarn test", "node", "yarn"},
		{"npx vitest run --reporter=junit", "node", "npx"},
		{cargoCommand, "rust", "cargo"},
		{mavenCommand, "java", "mvn"},
		{"./mvnw -o test", "java", "mvnw"},
		{gradleCommand, "java", "gradle"},
		{"cd web && npm test", "node", "npm"},
		{"make test", "", ""},
		{"python3 -m pytest && go vet ./...", "go", "go"},
		{"echo gopher", "", ""},
	}
	for _, tt := range tests {
		key, program := ImageFor(tt.command)
		if key != tt.key || program != tt.program {
			t.Errorf("ImageFor(%q) = %q, %q; want %q, %q", tt.command, key, program, tt.key, tt.program)
		}
	}
}
