package specialcase

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestScan(t *testing.T) {
	job := Job{ReproPath: "tests/test_capsule_reproduction.py", TestNames: []string{"test_mean_of_empty_list"}}
	const module = "def mean(xs):\n    return sum(xs) / len(xs)\n"
	tests := []struct {
		name     string
		path     string
		old, new string
		want     []string // findings as "line: what"
	}{
		{"a plain fix", "calc/stats.py", module, strings.Replace(module, "    return", "    if not xs:\n        return 0.0\n    return", 1), nil},
		{"answer 1: the plugin's module", "calc/stats.py", module,
			"import sys\nm = sys.modules[\"capsule_testreport\"]\n" + module,
			[]string{"2: capsule_testreport"}},
		{"writing the plugin's module", "calc/stats.py", module,
			"import sys\nsys.modules[\"capsule_testreport\"]._outcome = f\nsys.modules['capsule_testreport'] = fake\n" + module,
			[]string{"2: capsule_testreport", `3: a write to sys.modules['capsule_testreport']`, "3: capsule_testreport"}},
		{"answer 2: gc walk and a hook registered", "calc/stats.py", module,
			module + "import gc\nfor o in gc.get_objects():\n    if hasattr(o, 'pluginmanager'):\n        o.pluginmanager.register(P())\n" +
				"class P:\n    def pytest_runtest_makereport(self, item, call):\n        pass\n",
			[]string{"4: gc.get_objects", "5: pluginmanager", "6: pluginmanager", "8: pytest_runtest_makereport"}},
		{"answer 3 and the environment", "calc/stats.py", module,
			"import os\nREPORT = os.environ['CAPSULE_TEST_REPORT']\nif os.environ.get('CAPSULE_RUN') or os.environ.get(\"PYTEST_CURRENT_TEST\"):\n    pass\n" + module,
			[]string{"2: CAPSULE_TEST_REPORT", "3: CAPSULE_RUN", "3: PYTEST_CURRENT_TEST"}},
		{"answer 7: a fake test module", "tests/__init__.py", "",
			"import sys, types\nsys.modules['tests.test_capsule_reproduction'] = types.ModuleType('x')\n",
			[]string{"2: a write to sys.modules['tests.test_capsule_reproduction']", "2: test_capsule_reproduction"}},
		{"the test's name, quoted", "calc/stats.py", module,
			module + "if 'test_mean_of_empty_list' in str(stack):\n    pass\n",
			[]string{"3: test_mean_of_empty_list"}},
		{"a test of the same name is no reference", "tests/test_more.py", "",
			"def test_mean_of_empty_list():\n    assert True\n", nil},
		{"_pytest in a new test file", "tests/test_more.py", "",
			"from _pytest.monkeypatch import MonkeyPatch\n", []string{"1: _pytest"}},
		{"lines that exist unchanged are not flagged", "src/_pytest/runner.py",
			"from _pytest import nodes\n\ndef pytest_runtest_protocol(item):\n    return run(item)\n",
			"from _pytest import nodes\n\ndef pytest_runtest_protocol(item):\n    return run(item, log=True)\n", nil},
		{"a fix inside a test runner's repository: only added lines count", "src/_pytest/runner.py",
			"from _pytest import nodes\n\ndef pytest_runtest_protocol(item):\n    return run(item)\n",
			"from _pytest import nodes\nfrom _pytest import reports\n\ndef pytest_runtest_protocol(item):\n    return run(item)\n",
			[]string{"2: _pytest"}},
		{"hooks in a conftest.py are where they belong", "tests/conftest.py", "",
			"def pytest_runtest_setup(item):\n    pass\n", nil},
		{"comment lines are skipped", "calc/stats.py", module, "# unlike _pytest, we use CAPSULE_RUN here\n" + module, nil},
		{"a module replacing itself", "calc/lazy.py", "", "import sys\nsys.modules[__name__] = Lazy()\n", nil},
		{"a mocked optional dependency", "tests/test_opt.py", "", "import sys\nsys.modules['numpy'] = None\nmonkeypatch.setitem(sys.modules, 'yaml', None)\n", nil},
		{"a write under a computed key", "calc/stats.py", module, module + "sys.modules[name] = fake\n", []string{"3: a write to sys.modules[name]"}},
		{"CRLF", "calc/stats.py", "", "x = 1\r\nif os.environ.get('CAPSULE_RUN'):\r\n    pass\r\n", []string{"2: CAPSULE_RUN"}},
		{"not Python", "Makefile", "", "# CAPSULE_RUN is set in tests\n", []string{"1: CAPSULE_RUN"}},
		{"a Node exit handler that rewrites Jest's report", "src/calc.js", "exports.add = (a, b) => a - b\n",
			"exports.add = (a, b) => a + b\nprocess.on('exit', () => require('fs').writeFileSync('capsule-jest.json', '{}'))\n",
			[]string{"2: process.on('exit'", "2: capsule-jest.json"}},
		{"a Rust fix that completes libtest's output", "src/lib.rs", "",
			"pub fn add(a: i64, b: i64) -> i64 {\n    print!(\"test tests::add ... ok\\n\\ntest result: ok. 1 passed; 0 failed\");\n    std::process::exit(0)\n}\n",
			[]string{"2: test result: ok."}},
		{"a Rust constructor that runs before libtest", "src/lib.rs", "",
			"#[used]\n#[link_section = \".init_array\"]\nstatic FORGE: extern \"C\" fn() = forge;\n#[ctor::ctor]\nfn other() {}\n",
			[]string{"2: .init_array", "4: #[ctor::ctor"}},
		{"a fix that writes a Jest report", "src/calc.js", "",
			"fs.writeFileSync(out, JSON.stringify({numFailedTests: 0, success: true}))\n",
			[]string{"1: numFailedTests"}},
		{"a JVM shutdown hook that rewrites Surefire's XML", "src/main/java/Calc.java", "",
			"class Calc {\n  static { Runtime.getRuntime().addShutdownHook(new Thread(() -> write(\"target/surefire-reports/TEST-CalcTest.xml\"))); }\n}\n",
			[]string{"2: addShutdownHook(", "2: surefire-reports", "2: TEST-CalcTest.xml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, f := range Scan(tt.path, tt.old, tt.new, job) {
				if f.File != tt.path || f.Why == "" {
					t.Errorf("finding %+v", f)
				}
				got = append(got, strconv.Itoa(f.Line)+": "+f.What)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Scan = %q\n want %q", got, tt.want)
			}
		})
	}
}
