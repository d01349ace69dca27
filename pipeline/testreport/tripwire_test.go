package testreport_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/capsulehq/capsule/pipeline/testreport"
	"github.com/capsulehq/capsule/sandbox/agent"
)

// buggy is a module whose reproducing test fails, as the untouched tree of
// the attacks: an answer that leaves add wrong must never look
// solved.
var buggy = map[string]string{
	"calc.py":                            "def add(a, b):\n    return a - b\n",
	"tests/test_capsule_reproduction.py": "from calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n",
}

// ws names a workspace file as the tripwire and the checks report it.
func ws(name string, line int) string {
	return fmt.Sprintf("file=/capsule/workspace/%s line=%d", name, line)
}

func TestTripwireInSandbox(t *testing.T) {
	b := newPyBox(t)
	for _, tc := range []struct {
		name  string
		files map[string]string
		cmd   string
		// audit and integrity list records that must be among those sent,
		// as "event=... file=... line=..." and "check=... file=... line=...";
		// quiet says no audit or integrity record at all.
		audit, integrity []string
		quiet            bool
		// outcomes of the session's tests by name; 0 sessions means 1.
		outcomes map[string]string
		check    func(t *testing.T, run boxRun)
	}{
		{
			name: "the command's own PYTHONPATH and PYTEST_ADDOPTS keep the plugin",
			files: map[string]string{
				"src/calc.py":        "def add(a, b):\n    return a + b\n",
				"tests/test_calc.py": "from calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n\ndef test_bad():\n    assert add(1, 2) == 4\n",
			},
			cmd: "PYTHONPATH=src PYTEST_ADDOPTS='-q -p no:cacheprovider' python3 -m pytest tests", quiet: true,
			outcomes: map[string]string{"test_add": "passed", "test_bad": "failed"},
			check: func(t *testing.T, run boxRun) {
				if got := run.records("tripwire", "python"); len(got) != 1 || got[0] != "python=3.11.2" {
					t.Errorf("tripwire connections: %v", got)
				}
			},
		},
		{
			name: "a workspace capsule_testreport.py, even one pytest's rewriter would load, does not replace the plugin",
			files: with(buggy,
				"capsule_testreport.py", "print('FAKE PLUGIN')\ndef pytest_runtest_logreport(report):\n    report.outcome = 'passed'\n",
				"src/capsule_testreport.py", "print('FAKE PLUGIN')\n",
				"pytest.ini", "[pytest]\npython_files = test_*.py capsule_*.py\n"),
			cmd:      "PYTHONPATH=src python3 -m pytest -p capsule_testreport -p no:cacheprovider tests",
			outcomes: map[string]string{"test_add": "failed"}, quiet: true,
			check: func(t *testing.T, run boxRun) {
				if strings.Contains(run.output, "FAKE PLUGIN") {
					t.Error("the workspace's capsule_testreport.py was imported")
				}
			},
		},
		{
			name: "the standard library on behalf of a workspace file raises nothing",
			files: map[string]string{
				"calc.py": `import collections, dataclasses, enum, functools, gc, inspect, logging, typing, warnings
Point = collections.namedtuple("Point", "x y", defaults=(0,))
class Pair(typing.NamedTuple):
    a: int
    b: int = 2
@dataclasses.dataclass(frozen=True)
class D:
    x: int = 1
class Color(enum.Enum):
    RED = 1
log = logging.getLogger(__name__)
def add(a, b):
    log.warning("adding %s", Point(a, b))
    gc.collect()
    warnings.warn("old", DeprecationWarning)
    return a + b
@functools.lru_cache
def cached(x):
    return inspect.signature(add)
`,
				"tests/test_calc.py": `import logging, gc, calc
def test_add(caplog, monkeypatch, tmp_path):
    monkeypatch.setattr(calc, "cached", lambda x: None)
    (tmp_path / "f").write_text("x")
    with caplog.at_level(logging.INFO):
        assert calc.add(1, 2) == 3
    gc.collect()
    assert calc.Pair(1).b == 2 and calc.D().x == 1 and calc.Color.RED.value == 1

def test_fork_and_child():
    import os, subprocess, sys
    pid = os.fork()
    if pid == 0:
        gc.collect()
        os._exit(0)
    assert os.waitpid(pid, 0)[1] == 0
    subprocess.run([sys.executable, "-c", "import collections; collections.namedtuple('P', 'a')"], check=True)
`,
			},
			cmd: "python3 -m pytest", quiet: true, outcomes: map[string]string{"test_add": "passed", "test_fork_and_child": "passed"},
			check: func(t *testing.T, run boxRun) {
				if got := run.records("tripwire", "python"); len(got) != 3 {
					t.Errorf("%d tripwire connections, want 3: pytest's, its fork's, the child interpreter's", len(got))
				}
			},
		},
		{
			name: "attack 1: the answer rebinds the plugin's _outcome",
			files: with(buggy, "calc.py", `import sys
m = sys.modules["capsule_testreport"]
o = m._outcome
m._outcome = lambda r: "passed" if o(r) in ("failed", "error") else o(r)

def add(a, b):
    return a - b
`),
			cmd: "python3 -m pytest", integrity: []string{"check=plugin " + ws("calc.py", 4)},
			outcomes: map[string]string{"test_add": "passed"},
		},
		{
			name: "attack 1 obfuscated: the names built from pieces",
			files: with(buggy, "calc.py", `import sys
m = [v for k, v in sys.modules.items() if k.startswith("capsule_" + "test")][0]
name = "_out" + "come"
o = getattr(m, name)
setattr(m, name, lambda r: "passed")

def add(a, b):
    return a - b
`),
			cmd: "python3 -m pytest", integrity: []string{"check=plugin " + ws("calc.py", 5)},
		},
		{
			name: "attack 1 by code: the plugin's function gets other code",
			files: with(buggy, "calc.py", `import sys
m = sys.modules["capsule_" + "testreport"]
getattr(m, "_out" + "come").__code__ = (lambda report: "passed").__code__

def add(a, b):
    return a - b
`),
			cmd:       "python3 -m pytest",
			audit:     []string{"event=object.__setattr__ " + ws("calc.py", 3)},
			integrity: []string{"check=plugin " + ws("calc.py", 3)},
		},
		{
			name: "pytest's own report builder replaced",
			files: with(buggy, "calc.py", `import _pytest.reports as r
make = r.TestReport.from_item_and_call.__func__

def passing(cls, item, call):
    rep = make(cls, item, call)
    rep.outcome = "passed"
    return rep
r.TestReport.from_item_and_call = classmethod(passing)

def add(a, b):
    return a - b
`),
			cmd: "python3 -m pytest", integrity: []string{"check=pytest " + ws("calc.py", 4)},
			outcomes: map[string]string{"test_add": "passed"},
		},
		{
			name: "attack 2: a hook registered on the Config found by gc",
			files: with(buggy, "calc.py", `import gc
import pytest

class Pass:
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        outcome.get_result().outcome = "passed"

for o in gc.get_objects():
    if type(o).__name__ == "Config" and hasattr(o, "pluginmanager"):
        o.pluginmanager.register(Pass())
        break

def add(a, b):
    return a - b
`),
			cmd:       "python3 -m pytest",
			audit:     []string{"event=gc.get_objects " + ws("calc.py", 10)},
			integrity: []string{"check=hooks " + ws("calc.py", 5)}, // the decorator's line
			outcomes:  map[string]string{"test_add": "passed"},
		},
		{
			name: "attack 2 obfuscated: getattr(__import__(...)), a class built with type()",
			files: with(buggy, "calc.py", `walk = getattr(__import__("g" + "c"), "get_" + "obj" + "ects")
mark = getattr(__import__("_py" + "test").config, "hook" + "impl")(hookwrapper=True)

def wrap(self, item, call):
    outcome = yield
    outcome.get_result().outcome = "passed"

P = type("P", (), {"pytest_" + "runtest_" + "makereport": mark(wrap)})
for o in walk():
    pm = getattr(o, "plugin" + "manager", None) if type(o).__name__ == "Con" + "fig" else None
    if pm is not None:
        pm.register(P())
        break

def add(a, b):
    return a - b
`),
			cmd:       "python3 -m pytest",
			audit:     []string{"event=gc.get_objects " + ws("calc.py", 9)},
			integrity: []string{"check=hooks " + ws("calc.py", 4)},
		},
		{
			name: "attack 2 through the frames instead of gc",
			files: with(buggy, "calc.py", `import sys, pytest

class Pass:
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        outcome.get_result().outcome = "passed"

f = sys._getframe()
while f is not None:
    config = f.f_locals.get("config") or getattr(f.f_locals.get("self"), "config", None)
    if config is not None and hasattr(config, "pluginmanager"):
        config.pluginmanager.register(Pass())
        break
    f = f.f_back

def add(a, b):
    return a - b
`),
			cmd:       "python3 -m pytest",
			audit:     []string{"event=sys._getframe " + ws("calc.py", 9)},
			integrity: []string{"check=hooks " + ws("calc.py", 4)},
		},
		{
			name: "attack 3: the channel's sockets closed, a forged session on a new connection, os._exit(0)",
			files: with(buggy, "calc.py", `import os, socket
for fd in range(3, 256):
    try:
        if os.readlink("/proc/self/fd/%d" % fd).startswith("socket:"):
            os.close(fd)
    except OSError:
        pass
s = socket.socket(socket.AF_UNIX)
s.connect("/capsule/channel/report.sock")
s.sendall(b'{"kind":"start","rootdir":"/capsule/workspace","pytest":"7.2.1"}\n{"kind":"end","exitstatus":0,"stopped":""}\n')
os._exit(0)
`),
			cmd:   "python3 -m pytest",
			audit: []string{"event=socket.connect " + ws("calc.py", 9), "event=capsule.tripwire-lost file= line=0"},
			check: func(t *testing.T, run boxRun) {
				if n := len(run.sessions()); n != 2 {
					t.Errorf("%d sessions, want the plugin's (unfinished) and the forged one", n)
				}
			},
		},
		{
			name: "attack 3 quietly: the channel's sockets closed, the run goes on",
			files: with(buggy, "calc.py", `import os
for fd in range(3, 256):
    try:
        if os.readlink("/proc/self/fd/%d" % fd).startswith("socket:"):
            os.close(fd)
    except OSError:
        pass

def add(a, b):
    return a - b
`),
			cmd:       "python3 -m pytest",
			integrity: []string{"check=channel file= line=0", "check=tripwire file= line=0"},
			outcomes:  map[string]string{"test_add": "failed"},
		},
		{
			name: "attack 3 by dup2: the channel's sockets replaced by /dev/null",
			files: with(buggy, "calc.py", `import os
null = os.open("/dev/null", os.O_WRONLY)
for fd in range(3, 256):
    try:
        if fd != null and os.readlink("/proc/self/fd/%d" % fd).startswith("socket:"):
            os.dup2(null, fd)
    except OSError:
        pass

def add(a, b):
    return a - b
`),
			cmd:       "python3 -m pytest",
			integrity: []string{"check=channel file= line=0", "check=tripwire file= line=0"},
			outcomes:  map[string]string{"test_add": "failed"},
		},
		{
			name: "attack 3 by a socket object over the channel's descriptor",
			files: with(buggy, "calc.py", `import os, socket
for fd in range(3, 256):
    try:
        if os.readlink("/proc/self/fd/%d" % fd).startswith("socket:"):
            socket.socket(fileno=fd).shutdown(socket.SHUT_WR)
    except OSError:
        pass

def add(a, b):
    return a - b
`),
			cmd:       "python3 -m pytest",
			audit:     []string{"event=socket.__new__ " + ws("calc.py", 5)},
			integrity: []string{"check=channel file= line=0"},
		},
		{
			name: "ctypes, /proc/self/mem, O_TRUNC of the plugin's file, a profiler",
			files: with(buggy, "calc.py", `import ctypes, os, sys
ctypes.string_at(ctypes.addressof(ctypes.c_int(5)), 4)
try:
    open("/proc/self/mem", "rb").close()
except OSError:
    pass
try:
    os.open("/capsule/plugin/capsule_testreport.py", os.O_WRONLY | os.O_TRUNC)
except OSError:
    pass
sys.setprofile(None)

def add(a, b):
    return a - b
`),
			cmd: "python3 -m pytest",
			audit: []string{"event=ctypes.addressof " + ws("calc.py", 2), "event=open " + ws("calc.py", 4),
				"event=open " + ws("calc.py", 8), "event=sys.setprofile " + ws("calc.py", 11)},
			outcomes: map[string]string{"test_add": "failed"},
			check: func(t *testing.T, run boxRun) {
				if got := run.records("audit", "detail"); !slices.Contains(got, "detail=/capsule/plugin/capsule_testreport.py (O_TRUNC)") {
					t.Errorf("details: %v", got)
				}
			},
		},
		{
			name:  "a workspace script that imports the plugin",
			files: map[string]string{"imp.py": "import sys\nm = __import__('capsule_' + 'testreport')\nprint(m.__file__)\n"},
			cmd:   "python3 imp.py", audit: []string{"event=import " + ws("imp.py", 2)},
			check: func(t *testing.T, run boxRun) {
				if !strings.Contains(run.output, "/capsule/plugin/capsule_testreport.py") {
					t.Errorf("the plugin was not served from the helpers: %s", run.output)
				}
			},
		},
		{
			name: "attack 7: a tests/__init__.py puts a fake test module in sys.modules",
			files: with(buggy, "tests/__init__.py", `import sys, types
fake = types.ModuleType("tests.test_capsule_reproduction")
fake.__file__ = __file__.replace("__init__.py", "test_capsule_reproduction.py")
def test_add():
    pass
fake.test_add = test_add
sys.modules["tests.test_capsule_reproduction"] = fake
`),
			cmd:       "python3 -m pytest",
			integrity: []string{"check=module " + ws("tests/__init__.py", 4), "check=module " + ws("tests/test_capsule_reproduction.py", 0)},
			outcomes:  map[string]string{"test_add": "passed"},
		},
		{
			name: "attack 7 obfuscated: a spec that looks right, names from pieces",
			files: with(buggy, "tests/__init__.py", `import importlib.util, os, sys
name = __name__ + ".test_" + "capsule_reproduction"
path = os.path.join(os.path.dirname(__file__), name.rsplit(".", 1)[1] + ".py")
fake = importlib.util.module_from_spec(importlib.util.spec_from_file_location(name, path))
def test_add():
    pass
fake.test_add = test_add
sys.modules[name] = fake
`),
			cmd:       "python3 -m pytest",
			integrity: []string{"check=module " + ws("tests/__init__.py", 5)},
		},
		{
			name: "pytest in a child process and pytest.main in a test each have their own session",
			files: map[string]string{
				"tests/test_outer.py": `import os, subprocess, sys
import pytest

def test_child():
    assert subprocess.run([sys.executable, "-m", "pytest", "-q", "inner"], close_fds=True).returncode == 0

def test_main():
    assert pytest.main(["-q", "inner"]) == 0

def test_clears_environ():
    os.environ.clear()

def test_after():
    pass
`,
				"inner/test_inner.py": "def test_inner():\n    pass\n",
			},
			cmd: "python3 -m pytest tests", quiet: true,
			check: func(t *testing.T, run boxRun) {
				sessions := run.sessions()
				pids := map[int32]bool{}
				for _, l := range run.lines {
					if s, ok := sessions[l.conn]; ok && !l.closed {
						pids[l.pid] = true
						if last := s[len(s)-1]; last["kind"] != "end" {
							t.Errorf("session %d ends with %v", l.conn, last)
						}
					}
				}
				if len(sessions) != 3 || len(pids) != 2 {
					t.Errorf("%d sessions in %d processes, want 3 in 2", len(sessions), len(pids))
				}
				if got := run.records("tripwire", "python"); len(got) != 2 {
					t.Errorf("%d tripwire connections, want 2 (one per interpreter)", len(got))
				}
				if got := run.records("test", "name", "outcome"); len(got) != 6 {
					t.Errorf("test records: %v", got)
				}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := b.run(tc.files, tc.cmd)
			audit := run.records("audit", "event", "file", "line")
			integrity := run.records("integrity", "check", "file", "line")
			for _, want := range tc.audit {
				if !slices.Contains(audit, want) {
					t.Errorf("no audit record %q", want)
				}
			}
			for _, want := range tc.integrity {
				if !slices.Contains(integrity, want) {
					t.Errorf("no integrity record %q", want)
				}
			}
			if tc.quiet && len(audit)+len(integrity) > 0 {
				t.Errorf("audit records %q, integrity records %q: want none", audit, integrity)
			}
			if tc.outcomes != nil && !maps.Equal(run.outcomesOf(), tc.outcomes) {
				t.Errorf("outcomes %v, want %v", run.outcomesOf(), tc.outcomes)
			}
			if tc.check != nil {
				tc.check(t, run)
			}
			if t.Failed() {
				t.Log(run.dump())
			}
		})
	}
}

// TestPluginRecordsInSandbox reads a session's records of every kind of
// test with ParsePytest, wrapped as the agent wraps them.
func TestPluginRecordsInSandbox(t *testing.T) {
	run := newPyBox(t).run(map[string]string{"tests/test_kinds.py": kinds}, "pytest -p no:cacheprovider")
	sessions := run.sessions()
	if len(sessions) != 1 {
		t.Fatalf("%d sessions\n%s", len(sessions), run.dump())
	}
	// The lines as the agent wraps them (sandbox/agent's channel).
	var data []byte
	for _, l := range run.lines {
		if _, ok := sessions[l.conn]; !ok {
			continue
		}
		rec := map[string]any{"conn": l.conn, "pid": l.pid, "line": l.raw}
		if l.closed {
			rec = map[string]any{"conn": l.conn, "pid": l.pid, "closed": true}
		}
		line, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		data = append(append(data, line...), '\n')
	}
	rep := testreport.ParsePytest(data, agent.Workspace)
	if got := outcomes(rep); !maps.Equal(got, kindsWant) || !rep.Complete() {
		t.Errorf("outcomes = %v\nwant %v\nincomplete: %q\n%s", got, kindsWant, rep.Incomplete(), run.dump())
	}
	res := rep.Tests[testreport.ID{File: "tests/test_kinds.py", Name: "test_setup_error"}]
	if res.Phase != "setup" || res.Message != "RuntimeError: fixture broke" {
		t.Errorf("setup error: %+v", res)
	}
}
