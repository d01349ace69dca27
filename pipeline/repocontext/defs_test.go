package repocontext

import "testing"

func TestDefinedName(t *testing.T) {
	tests := []struct {
		line, want string
	}{
		{"def divide(a, b):", "divide"},
		{"    def divide(self, a, b):", "divide"},
		{"async def fetch(url):", "fetch"},
		{"class Calculator(Base):", "Calculator"},
		{"class Empty:", "Empty"},
		{"MAX_RETRIES = 3", "MAX_RETRIES"},
		{"timeout: float = 1.5", "timeout"},
		{"x == 3", ""},
		{"    total = 0", ""}, // indented: a local, not a definition
		{"func Divide(a, b int) int {", "Divide"},
		{"func (c *Calc) Divide(a, b int) int {", "Divide"},
		{"type Calc struct {", "Calc"},
		{"function divide(a, b) {", "divide"},
		{"export default async function handler(req) {", "handler"},
		{"export class Store {", "Store"},
		{"export const parseDuration = (s) => {", "parseDuration"},
		{"interface Options {", "Options"},
		{"return divide(a, b)", ""},
		{"# def commented(x):", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := string(definedName([]byte(tt.line))); got != tt.want {
			t.Errorf("definedName(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

func TestParseSignature(t *testing.T) {
	tests := []struct {
		in, name, header string
		ok               bool
	}{
		{"def divide(a: float, b: float) -> float:", "divide", "def divide(a: float, b: float) -> float", true},
		{"def divide(a, b): return a / b", "divide", "def divide(a, b)", true},
		{"async def fetch(url: str,\n    timeout: float = 1.0) -> bytes:", "fetch", "async def fetch(url: str, timeout: float = 1.0) -> bytes", true},
		{"class Calculator(Base):", "Calculator", "class Calculator(Base)", true},
		{"class Calculator:", "Calculator", "class Calculator", true},
		{"func (c *Calc) Divide(a, b int) (int, error) {", "Divide", "func (c *Calc) Divide(a, b int) (int, error)", true},
		{"function divide(a, b) {", "divide", "function divide(a, b)", true},
		{"def broken(a, b", "broken", "def broken(a, b", true},
		{"divide(1, 0)", "", "", false},
		{"define the thing", "", "", false},
	}
	for _, tt := range tests {
		name, header, ok := parseSignature(tt.in)
		if name != tt.name || header != tt.header || ok != tt.ok {
			t.Errorf("parseSignature(%q) = %q, %q, %v; want %q, %q, %v", tt.in, name, header, ok, tt.name, tt.header, tt.ok)
		}
	}
}
