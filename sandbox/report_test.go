package sandbox_test

import (
	"strings"
	"testing"

	"github.com/capsulehq/capsule/internal/sandboxtest"
	"github.com/capsulehq/capsule/pipeline/testreport"
	"github.com/capsulehq/capsule/sandbox"
	"github.com/capsulehq/capsule/sandbox/agent"
)

// The per-test report channel: the plugin sits where every run reads it and
// none writes it, and each run that asks gets an empty report file it may
// append to but not remove, whose bytes come back in the Result.
func TestTestReportChannel(t *testing.T) {
	eng := sandboxtest.Engine(t)
	s := newSession(t, eng, nil, nil)

	plugin := agent.PluginDir + "/" + testreport.PluginFile
	res := run(t, s, sandbox.Run{Cmd: sh(`
cmp -s ` + plugin + ` ` + plugin + ` && echo plugin readable
echo x >> ` + plugin + ` 2>/dev/null || echo plugin not writable
touch ` + agent.PluginDir + `/other.py 2>/dev/null || echo plugin dir not writable
test -s ` + agent.ReportFile + ` || echo report empty
echo '{"kind":"a"}' >> ` + agent.ReportFile + ` && echo appended
rm -f ` + agent.ReportFile + ` 2>/dev/null; mv ` + agent.ReportFile + ` /tmp/moved 2>/dev/null; chmod 000 ` + agent.ReportFile + ` 2>/dev/null
echo '{"kind":"b"}' >> ` + agent.ReportFile + ` && echo still there
`), TestReport: true})
	want := "plugin readable\nplugin not writable\nplugin dir not writable\nreport empty\nappended\nstill there\n"
	if string(res.Stdout) != want || res.ExitCode != 0 {
		t.Errorf("exit %d, stdout:\n%s\nstderr: %s\nwant:\n%s", res.ExitCode, res.Stdout, res.Stderr, want)
	}
	if got := string(res.TestReport); got != "{\"kind\":\"a\"}\n{\"kind\":\"b\"}\n" || res.TestReportBytes != int64(len(got)) {
		t.Errorf("TestReport = %q (%d bytes)", got, res.TestReportBytes)
	}

	// The next run starts with an empty report; a run that does not ask
	// has none.
	res = run(t, s, sandbox.Run{Cmd: sh("test -f " + agent.ReportFile + " && ! test -s " + agent.ReportFile + " && echo empty"), TestReport: true})
	if strings.TrimSpace(string(res.Stdout)) != "empty" || len(res.TestReport) != 0 {
		t.Errorf("second run: exit %d, stdout %q, stderr %q, report %q; want an empty report", res.ExitCode, res.Stdout, res.Stderr, res.TestReport)
	}
	res = run(t, s, sandbox.Run{Cmd: sh("test -e " + agent.ReportFile + " && echo exists; echo '{}' > /tmp/r")})
	if len(res.Stdout) != 0 || res.TestReport != nil {
		t.Errorf("a run without a report: stdout %q, report %q", res.Stdout, res.TestReport)
	}
}

// A report larger than the bound comes back cut, with its true size.
func TestTestReportIsBounded(t *testing.T) {
	eng := sandboxtest.Engine(t)
	s := newSession(t, eng, nil, nil)
	res := run(t, s, sandbox.Run{Cmd: py(`
with open("` + agent.ReportFile + `", "a") as f:
    f.write("x" * (` + "33 << 20" + `))
`), TestReport: true})
	if res.ExitCode != 0 || len(res.TestReport) != agent.MaxReport || res.TestReportBytes != 33<<20 {
		t.Errorf("exit %d (%s), report %d of %d bytes; want %d of %d", res.ExitCode, res.Stderr, len(res.TestReport), res.TestReportBytes, agent.MaxReport, 33<<20)
	}
}
