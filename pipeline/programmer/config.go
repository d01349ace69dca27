package programmer

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"time"
)

// Defaults applied by New to zero Config fields.
const (
	DefaultRequestTimeout = 120 * time.Second
	DefaultMaxRetries     = 5
)

// ErrConfig reports an unusable Config.
var ErrConfig = errors.New("invalid model configuration")

// Config says which endpoint and model to call, and how.
type Config struct {
	// BaseURL is the OpenAI-compatible endpoint, e.g. http://localhost:8000 or
	// https://api.openai.com/v1. "/v1" is appended when the URL has no path.
	BaseURL string
	// APIKey is sent as a bearer token; local servers often need none.
	APIKey string
	// Model is the model name the endpoint serves.
	Model string
	// Temperature is the sampling temperature; 0 asks for greedy decoding.
	Temperature float32
	// Seed, when set, asks the endpoint for reproducible sampling.
	Seed *int
	// MaxTokens caps the completion length; 0 leaves it to the endpoint.
	MaxTokens int
	// RequestTimeout bounds each HTTP attempt (default 120s).
	RequestTimeout time.Duration
	// MaxRetries is how often a call is retried after 408, 429, 5xx, a
	// timeout or a connection error (default 5; negative: never).
	MaxRetries int
	// MaxAnswerBytes bounds the bytes read of one response (default
	// DefaultMaxAnswerBytes). A longer answer is dropped unread: see
	// Reply.OverLimit.
	MaxAnswerBytes int64
	// Logger receives retry warnings (default slog.Default()).
	Logger *slog.Logger
}

// ConfigFromEnv returns the defaults with BaseURL, APIKey and Model taken
// from OPENAI_BASE_URL, OPENAI_API_KEY and CAPSULE_MODEL.
func ConfigFromEnv() Config {
	return Config{
		BaseURL:        os.Getenv("OPENAI_BASE_URL"),
		APIKey:         os.Getenv("OPENAI_API_KEY"),
		Model:          os.Getenv("CAPSULE_MODEL"),
		RequestTimeout: DefaultRequestTimeout,
		MaxRetries:     DefaultMaxRetries,
	}
}

// withDefaults checks c and returns it with defaults filled in and BaseURL
// normalised.
func (c Config) withDefaults() (Config, error) {
	base, err := normalizeBaseURL(c.BaseURL)
	if err != nil {
		return c, err
	}
	c.BaseURL = base
	switch {
	case strings.TrimSpace(c.Model) == "":
		return c, fmt.Errorf("%w: no model name (set CAPSULE_MODEL)", ErrConfig)
	case c.Temperature < 0 || c.Temperature > 2:
		return c, fmt.Errorf("%w: temperature %v is outside [0, 2]", ErrConfig, c.Temperature)
	case c.MaxTokens < 0:
		return c, fmt.Errorf("%w: negative max tokens %d", ErrConfig, c.MaxTokens)
	case c.RequestTimeout < 0:
		return c, fmt.Errorf("%w: negative request timeout %v", ErrConfig, c.RequestTimeout)
	case c.MaxAnswerBytes < 0:
		return c, fmt.Errorf("%w: negative answer limit %d", ErrConfig, c.MaxAnswerBytes)
	}
	if c.MaxAnswerBytes == 0 {
		c.MaxAnswerBytes = DefaultMaxAnswerBytes
	}
	if c.RequestTimeout == 0 {
		c.RequestTimeout = DefaultRequestTimeout
	}
	switch {
	case c.MaxRetries == 0:
		c.MaxRetries = DefaultMaxRetries
	case c.MaxRetries < 0:
		c.MaxRetries = 0
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c, nil
}

// normalizeBaseURL returns raw in the form go-openai needs: an http(s) URL
// whose path includes the API version. A bare host gets "/v1"; a URL with a
// path is kept as it is, so http://host:8000 and http://host:8000/v1 agree.
func normalizeBaseURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", fmt.Errorf("%w: no base URL (set OPENAI_BASE_URL, e.g. http://localhost:8000/v1)", ErrConfig)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%w: base URL %q is not an http(s)://host[:port][/path] URL", ErrConfig, raw)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("%w: base URL %q has a query or fragment", ErrConfig, raw)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	if u.Path == "" {
		u.Path = "/v1"
	}
	return u.String(), nil
}
