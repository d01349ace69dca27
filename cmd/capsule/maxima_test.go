package main

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/capsulehq/capsule/bot/job"
	"github.com/capsulehq/capsule/pipeline/programmer"
	"github.com/capsulehq/capsule/pipeline/repo"
)

func TestOperatorLimits(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want func(*operatorLimits)
		err  string
	}{
		{name: "defaults", want: func(*operatorLimits) {}},
		{
			name: "environment",
			env: map[string]string{
				"CAPSULE_MAX_ATTEMPTS": "3", "CAPSULE_MAX_TIMEOUT": "10m", "CAPSULE_MAX_HISTORY": "2",
				"CAPSULE_MAX_MEMORY": "2g", "CAPSULE_MAX_CPUS": "0.5", "CAPSULE_MAX_DISK": "3g", "CAPSULE_MAX_ANSWER_BYTES": "512k", "CAPSULE_MAX_ANSWER_FILES": "7",
				"CAPSULE_MAX_CI_ROUNDS": "1", "CAPSULE_MAX_REQUESTS": "0",
			},
			want: func(l *operatorLimits) {
				l.max = repo.Maxima{Attempts: 3, Timeout: 10 * time.Minute, History: 2, Memory: 2 << 30, CPUs: 0.5, Disk: 3 << 30, AnswerFiles: 7, ReproduceTries: 5, Requests: 0}
				l.answerBytes, l.ciRounds = 512<<10, 1
			},
		},
		{
			name: "flags win over the environment",
			env:  map[string]string{"CAPSULE_MAX_ATTEMPTS": "3", "CAPSULE_MAX_MEMORY": "2g"},
			args: []string{"--max-attempts", "1", "--max-memory", "1g", "--max-answer-bytes", "2m"},
			want: func(l *operatorLimits) { l.max.Attempts, l.max.Memory, l.answerBytes = 1, 1<<30, 2<<20 },
		},
		{
			name: "no CI rounds",
			env:  map[string]string{"CAPSULE_MAX_CI_ROUNDS": "3"},
			args: []string{"--max-ci-rounds", "0"},
			want: func(l *operatorLimits) { l.ciRounds = 0 },
		},
		{name: "negative CI rounds", env: map[string]string{"CAPSULE_MAX_CI_ROUNDS": "-1"}, err: "CI rounds must not be negative"},
		{name: "bad CI rounds", env: map[string]string{"CAPSULE_MAX_CI_ROUNDS": "two"}, err: "$CAPSULE_MAX_CI_ROUNDS"},
		{name: "bad environment", env: map[string]string{"CAPSULE_MAX_TIMEOUT": "soon"}, err: "$CAPSULE_MAX_TIMEOUT"},
		{name: "bad size", env: map[string]string{"CAPSULE_MAX_MEMORY": "lots"}, err: "$CAPSULE_MAX_MEMORY"},
		{name: "no time", args: []string{"--max-timeout", "0s"}, err: "maximum timeout must be positive"},
		{name: "tiny answers", args: []string{"--max-answer-bytes", "100"}, err: "below 1 KiB"},
		{name: "no files", env: map[string]string{"CAPSULE_MAX_ANSWER_FILES": "0"}, err: "files per answer"},
		{name: "negative requests", env: map[string]string{"CAPSULE_MAX_REQUESTS": "-1"}, err: "requests must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, e := range operatorLimitEnv {
				t.Setenv(e.env, tt.env[e.env])
			}
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			var got operatorLimits
			err := got.register(fs)
			if err == nil {
				err = fs.Parse(tt.args)
			}
			if err == nil {
				err = got.check()
			}
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one mentioning %q", err, tt.err)
				}
				if !errors.Is(err, errUsage) {
					t.Errorf("err = %v, want a usage error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := operatorLimits{max: repo.DefaultMaxima(), answerBytes: programmer.DefaultMaxAnswerBytes, ciRounds: job.DefaultMaxCIRounds}
			tt.want(&want)
			if got != want {
				t.Errorf("limits = %+v, want %+v", got, want)
			}
		})
	}
}

// TestOperatorCIRounds: the operator's maximum reaches the job's Runner,
// where 0 (off) must not read as "the default".
func TestOperatorCIRounds(t *testing.T) {
	for _, tc := range []struct{ flag, runner int }{{0, -1}, {1, 1}, {job.DefaultMaxCIRounds, job.DefaultMaxCIRounds}} {
		l := operatorLimits{ciRounds: tc.flag}
		if got := l.runnerCIRounds(); got != tc.runner {
			t.Errorf("runnerCIRounds of %d = %d, want %d", tc.flag, got, tc.runner)
		}
	}
}
