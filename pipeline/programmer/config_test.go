package programmer

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestNormalizeBaseURL(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"http://localhost:8000", "http://localhost:8000/v1"},
		{"http://localhost:8000/", "http://localhost:8000/v1"},
		{"http://localhost:8000/v1", "http://localhost:8000/v1"},
		{"http://localhost:8000/v1/", "http://localhost:8000/v1"},
		{" https://api.openai.com/v1 ", "https://api.openai.com/v1"},
		{"http://gateway.internal/openai/v1", "http://gateway.internal/openai/v1"},
		{"http://127.0.0.1:11434", "http://127.0.0.1:11434/v1"},
	}
	for _, tt := range tests {
		got, err := normalizeBaseURL(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("normalizeBaseURL(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	valid := Config{BaseURL: "http://localhost:8000", Model: "qwen"}
	tests := []struct {
		name    string
		mutate  func(*Config)
		mention string
	}{
		{"no base URL", func(c *Config) { c.BaseURL = "" }, "OPENAI_BASE_URL"},
		{"no scheme", func(c *Config) { c.BaseURL = "localhost:8000" }, `"localhost:8000"`},
		{"other scheme", func(c *Config) { c.BaseURL = "ftp://host/v1" }, `"ftp://host/v1"`},
		{"query", func(c *Config) { c.BaseURL = "http://host/v1?x=1" }, "query"},
		{"no model", func(c *Config) { c.Model = " " }, "CAPSULE_MODEL"},
		{"temperature", func(c *Config) { c.Temperature = 3 }, "temperature"},
		{"max tokens", func(c *Config) { c.MaxTokens = -1 }, "max tokens"},
		{"timeout", func(c *Config) { c.RequestTimeout = -time.Second }, "timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := valid
			tt.mutate(&cfg)
			_, err := New(cfg)
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tt.mention) {
				t.Errorf("New() error = %v, want ErrConfig mentioning %s", err, tt.mention)
			}
		})
	}
}

func TestConfigDefaults(t *testing.T) {
	tests := []struct {
		name        string
		in          Config
		wantTimeout time.Duration
		wantRetries int
	}{
		{"zero values", Config{}, DefaultRequestTimeout, DefaultMaxRetries},
		{"explicit", Config{RequestTimeout: time.Second, MaxRetries: 2}, time.Second, 2},
		{"no retries", Config{MaxRetries: -1}, DefaultRequestTimeout, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.BaseURL, tt.in.Model = "http://localhost:8000", "m"
			c, err := New(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			got := c.Config()
			if got.RequestTimeout != tt.wantTimeout || got.MaxRetries != tt.wantRetries || got.Logger == nil {
				t.Errorf("config = timeout %v, retries %d, logger %v; want %v, %d, set",
					got.RequestTimeout, got.MaxRetries, got.Logger, tt.wantTimeout, tt.wantRetries)
			}
			if got.BaseURL != "http://localhost:8000/v1" {
				t.Errorf("base URL = %q, want it normalised", got.BaseURL)
			}
		})
	}
}

func TestConfigFromEnv(t *testing.T) {
	t.Setenv("OPENAI_BASE_URL", "http://vllm:8000")
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("CAPSULE_MODEL", "Qwen/Qwen2.5-Coder-7B-Instruct")

	got := ConfigFromEnv()
	want := Config{
		BaseURL:        "http://vllm:8000",
		APIKey:         "sk-test",
		Model:          "Qwen/Qwen2.5-Coder-7B-Instruct",
		RequestTimeout: DefaultRequestTimeout,
		MaxRetries:     DefaultMaxRetries,
	}
	if got.BaseURL != want.BaseURL || got.APIKey != want.APIKey || got.Model != want.Model ||
		got.RequestTimeout != want.RequestTimeout || got.MaxRetries != want.MaxRetries {
		t.Errorf("ConfigFromEnv() = %+v, want %+v", got, want)
	}
}
