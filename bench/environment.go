package bench

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/capsulehq/capsule/pipeline"
	"github.com/capsulehq/capsule/sandbox/limits"
)

// The kinds of environment failure, the start of every reason
// EnvironmentFailure gives.
const (
	EnvMissingModule  = "missing module"
	EnvMissingData    = "missing NLTK data"
	EnvMissingProgram = "missing program"
	EnvNetwork        = "network access"
	EnvTimeLimit      = "time limit"
	EnvMemory         = "memory limit"
	EnvOther          = "reference fails"
)

var (
	missingModuleRe  = regexp.MustCompile(`(?:ModuleNotFoundError|ImportError): No module named '([^']+)'`)
	importErrorRe    = regexp.MustCompile(`ImportError: (.+)`)
	nltkDataRe       = regexp.MustCompile(`Resource (?:\x1b\[\d+m)?([\w./-]+)(?:\x1b\[\d+m)? not found`)
	missingProgramRe = regexp.MustCompile(`(?m)(?:^/bin/sh: \d+: ([\w.+-]+): not found$|No such file or directory: '([\w.+-]+)'$)`)
	networkRe        = regexp.MustCompile(`(?i)(Temporary failure in name resolution|Name or service not known|Network is unreachable|Failed to establish a new connection|URLError|ConnectionError|gaierror|Max retries exceeded)`)
	errorLineRe      = regexp.MustCompile(`^(?:[\w.]+\.)?([A-Z]\w*(?:Error|Exception|Failure)|AssertionError)\b(:.*)?$`)
)

// EnvironmentFailure says why a reference solution failed its own tests
// in the sandbox, as "kind: detail": a module the image lacks, NLTK data
// or a program it lacks, network access the sandbox does not give, a time or memory
// limit, or else the first error the tests reported (library versions
// that differ from the ones the dataset was written for).
func EnvironmentFailure(o pipeline.Outcome) string {
	out := o.Harness.Stdout + "\n" + o.Harness.Stderr
	switch {
	case o.Sandbox.OOMKilled:
		return EnvMemory + ": killed past " + limits.FormatBytes(o.Sandbox.Memory)
	case o.Harness.TimedOut:
		return EnvTimeLimit + ": " + strings.TrimSpace(o.Log("").Reason)
	}
	if m := missingModuleRe.FindStringSubmatch(out); m != nil {
		return EnvMissingModule + ": " + m[1]
	}
	if m := nltkDataRe.FindStringSubmatch(out); m != nil && strings.Contains(out, "nltk") {
		return EnvMissingData + ": " + m[1]
	}
	if m := missingProgramRe.FindStringSubmatch(out); m != nil {
		return EnvMissingProgram + ": " + m[1] + m[2]
	}
	if m := networkRe.FindStringSubmatch(out); m != nil {
		return EnvNetwork + ": " + m[1]
	}
	if m := importErrorRe.FindStringSubmatch(out); m != nil {
		return EnvMissingModule + ": " + clip(m[1])
	}
	for _, line := range strings.Split(out, "\n") {
		if m := errorLineRe.FindStringSubmatch(strings.TrimSpace(line)); m != nil && m[1] != "CapsuleTestsFailed" {
			return EnvOther + ": " + clip(m[1]+m[2])
		}
	}
	return EnvOther + ": exit status " + strconv.Itoa(o.Sandbox.ExitCode)
}

// clip shortens a detail to one line of at most 120 bytes.
func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 120 {
		s = strings.ToValidUTF8(s[:120], "") + "..."
	}
	return s
}
