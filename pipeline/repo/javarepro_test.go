package repo

import (
	"strings"
	"testing"

	"github.com/capsulehq/capsule/pipeline/programmer"
)

func TestJavaSource(t *testing.T) {
	for _, tc := range []struct {
		path, dir          string
		module, pkg, class string
		ok                 bool
	}{
		{"src/main/java/com/x/Y.java", javaMainDir, ".", "com.x", "Y", true},
		{"core/src/main/java/com/x/Y.java", javaMainDir, "core", "com.x", "Y", true},
		{"a/b/src/test/java/com/x/YTest.java", javaTestDir, "a/b", "com.x", "YTest", true},
		{"src/main/java/Y.java", javaMainDir, "", "", "", false},
		{"src/main/java/com/x/Y.kt", javaMainDir, "", "", "", false},
		{"src/test/java/com/x/YTest.java", javaMainDir, "", "", "", false},
		{"mysrc/main/java/com/x/Y.java", javaMainDir, "", "", "", false},
		{"src/main/java/com/my-pkg/Y.java", javaMainDir, "", "", "", false},
	} {
		m, p, c, ok := javaSource(tc.path, tc.dir)
		if m != tc.module || p != tc.pkg || c != tc.class || ok != tc.ok {
			t.Errorf("javaSource(%s) = %q, %q, %q, %v", tc.path, m, p, c, ok)
		}
	}
}

func TestPlaceJavaRepro(t *testing.T) {
	files := map[string]string{
		"pom.xml": "<project/>",
		"src/main/java/com/x/semver/Version.java":         "package com.x.semver;\n",
		"src/main/java/com/x/semver/expr/Lexer.java":      "package com.x.semver.expr;\n",
		"src/test/java/com/x/semver/VersionTest.java":     "package com.x.semver;\nclass VersionTest {}\n",
		"src/test/java/com/x/semver/expr/LexerTest.java":  "",
		"src/test/java/com/x/semver/expr/ParserTest.java": "",
		"core/pom.xml":                                          "<project/>",
		"core/src/main/java/org/y/Calc.java":                    "",
		"core/src/test/java/org/y/OtherTest.java":               "",
		"core/src/test/java/org/y/CapsuleReproductionTest.java": "",
		"tools/src/main/java/org/z/Tool.java":                   "",
	}
	suites := []string{"com.x.semver.VersionTest", "com.x.semver.expr.LexerTest", "org.y.OtherTest"}
	repo := writeTree(t, files)
	for _, tc := range []struct {
		name            string
		ranked          []string
		suites          []string
		path, pkg, near string
		why             string
	}{
		{"the first ranked main class", []string{"README.md", "src/test/java/com/x/semver/VersionTest.java", "src/main/java/com/x/semver/Version.java"}, suites,
			"src/test/java/com/x/semver/CapsuleReproductionTest.java", "com.x.semver", "src/test/java/com/x/semver/VersionTest.java", "which holds src/main/java/com/x/semver/Version.java"},
		{"a test beside it when none is named after it", []string{"src/main/java/com/x/semver/expr/Lexer.java"}, suites,
			"src/test/java/com/x/semver/expr/CapsuleReproductionTest.java", "com.x.semver.expr", "src/test/java/com/x/semver/expr/LexerTest.java", "the first main class"},
		{"a module of a multi-module build, its name taken", []string{"core/src/main/java/org/y/Calc.java"}, suites,
			"core/src/test/java/org/y/CapsuleReproduction2Test.java", "org.y", "core/src/test/java/org/y/CapsuleReproductionTest.java", "(module core/)"},
		{"a directory without a pom.xml is no module", []string{"tools/src/main/java/org/z/Tool.java"}, []string{"org.y.OtherTest"},
			"core/src/test/java/org/y/CapsuleReproduction2Test.java", "org.y", "core/src/test/java/org/y/CapsuleReproductionTest.java", "the first test class the baseline ran"},
		{"no ranked main class", nil, []string{"README", "com.x.semver.expr.LexerTest"},
			"src/test/java/com/x/semver/expr/CapsuleReproductionTest.java", "com.x.semver.expr", "src/test/java/com/x/semver/expr/LexerTest.java", "of com.x.semver.expr.LexerTest, the first test class the baseline ran"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl, problem := placeJavaRepro(repo, tc.suites, ranked(tc.ranked...))
			if problem != "" {
				t.Fatal(problem)
			}
			if pl.Path != tc.path || pl.pkgName != tc.pkg || pl.near != tc.near || !strings.Contains(pl.Why, tc.why) || pl.lang != programmer.JavaTest {
				t.Errorf("placeJavaRepro = %s in %s beside %s (%s), want %s in %s beside %s (%q)", pl.Path, pl.pkgName, pl.near, pl.Why, tc.path, tc.pkg, tc.near, tc.why)
			}
			if want := strings.TrimSuffix(tc.path[strings.LastIndex(tc.path, "/")+1:], ".java"); pl.class != want {
				t.Errorf("class %s, want %s", pl.class, want)
			}
		})
	}

	pl, _ := placeJavaRepro(repo, suites, ranked("src/main/java/com/x/semver/Version.java"))
	for p, want := range map[string]string{
		"src/test/java/com/x/semver/CapsuleReproductionTest.java":                                  "",
		"src/test/java/com/x/semver/expr/CapsuleReproductionTest.java":                             "the test is class CapsuleReproductionTest of package com.x.semver, in src/test/java/com/x/semver/CapsuleReproductionTest.java",
		"src/test/java/com/x/semver/IssueTest.java":                                                "the test is class CapsuleReproductionTest",
		"src/test/resources/META-INF/services/org.junit.platform.launcher.LauncherSessionListener": "test infrastructure",
		"src/test/java/com/x/semver/VersionTest.java":                                              "the test is class",
	} {
		if got := pl.check(repo, p); want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("check(%s) = %q, want %q", p, got, want)
		}
	}
	if near := pl.nearby(repo, ranked()); !strings.Contains(near, "A test of package com.x.semver") ||
		!strings.Contains(near, "src/test/java/com/x/semver/VersionTest.java:\n```java\npackage com.x.semver;\nclass VersionTest {}\n```") {
		t.Errorf("nearby:\n%s", near)
	}

	for _, tc := range []struct {
		name    string
		suites  []string
		problem string
	}{
		{"no class in the reports", []string{"tests/test_a.py", "Main"}, "name no JUnit test class"},
		{"no test class under a module", []string{"com.x.Gone"}, "no test class the baseline ran is under a Maven module"},
	} {
		if _, problem := placeJavaRepro(repo, tc.suites, ranked()); !strings.Contains(problem, tc.problem) {
			t.Errorf("%s: problem %q, want %q", tc.name, problem, tc.problem)
		}
	}
}

func TestJavaTestFile(t *testing.T) {
	const file = "src/test/java/com/x/CapsuleReproductionTest.java"
	test := func(body string) string {
		return "package com.x;\n\nimport org.junit.jupiter.api.Test;\n\nclass CapsuleReproductionTest {\n" + body + "\n}\n"
	}
	const plain = "    @Test\n    void works() { org.junit.jupiter.api.Assertions.assertEquals(1, Calc.one()); }"
	for _, tc := range []struct {
		name, content, problem string
	}{
		{"a test class", test(plain), ""},
		{"nested and parameterised tests", test("    @Nested class Empty {\n        @org.junit.jupiter.params.ParameterizedTest\n        @ValueSource(ints = {1, 2})\n        void mean(int n) {}\n    }"), ""},
		{"a static nested class and words in comments and strings",
			test(plain + "\n    // static { System.exit(0); } addShutdownHook @ExtendWith\n    static class Helper { String s = \"static {\"; char c = '{'; String t = \"\"\"\n      System.exit(1) \\\"\"\" }\n      \"\"\"; }"), ""},
		{"another package", strings.Replace(test(plain), "package com.x;", "package com.y;", 1), "the file is in package com.y; write class CapsuleReproductionTest in package com.x"},
		{"no package", strings.Replace(test(plain), "package com.x;", "", 1), "the file declares no package"},
		{"another class name", strings.Replace(test(plain), "class CapsuleReproductionTest", "class IssueTest", 1), "the file declares IssueTest; declare one top-level class, CapsuleReproductionTest"},
		{"a second top-level type", test(plain) + "class Helper {}\n", "the file declares CapsuleReproductionTest, Helper"},
		{"a static initialiser", test(plain + "\n    static {\n        Runtime.getRuntime();\n    }"), "a static initialiser"},
		{"a shutdown hook", test("    @Test void hook() { Runtime.getRuntime().addShutdownHook(new Thread(() -> {})); }"), "a JVM shutdown hook"},
		{"System.exit", test("    @Test void exit() { System . exit(0); }"), "ends the JVM"},
		{"Runtime.halt", test("    @Test void halt() { Runtime r = Runtime.getRuntime(); r.halt(0); }"), "ends the JVM"},
		{"@ExtendWith", "package com.x;\n@org.junit.jupiter.api.extension.ExtendWith(Forge.class)\nclass CapsuleReproductionTest {\n" + plain + "\n}\n", "a JUnit extension"},
		{"@RegisterExtension", test("    @RegisterExtension static Object ext = null;\n" + plain), "a JUnit extension"},
		{"the extension API", "package com.x;\nimport org.junit.jupiter.api.extension.AfterAllCallback;\nclass CapsuleReproductionTest {\n" + plain + "\n}\n", "a JUnit extension"},
		{"the launcher", "package com.x;\nimport org.junit.platform.launcher.TestExecutionListener;\nclass CapsuleReproductionTest {\n" + plain + "\n}\n", "the JUnit Platform's launcher"},
		{"Surefire's reports", test("    @Test void forge() throws Exception { java.nio.file.Files.writeString(java.nio.file.Path.of(\"target/surefire-reports/x\"), \"\"); }"), "names Surefire's report files"},
		{"no test", test("    void helper() {}"), "no JUnit 5 test method"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tf, problem := javaTestFile(file, tc.content, "com.x", "CapsuleReproductionTest")
			if tc.problem == "" && problem != "" || !strings.Contains(problem, tc.problem) {
				t.Fatalf("problem %q, want %q", problem, tc.problem)
			}
			if tc.problem == "" && (tf.Path != file || tf.Suite != "com.x.CapsuleReproductionTest") {
				t.Errorf("test file %+v", tf)
			}
		})
	}
}

func TestCompilerLines(t *testing.T) {
	const base = "CapsuleReproductionTest.java"
	for _, tc := range []struct {
		name, output, want string
	}{
		{"javac's errors through Maven, colours removed",
			"[INFO] Compiling 1 source file\n\x1b[1;31mERROR\x1b[m] /workspace/src/test/java/a/CapsuleReproductionTest.java:[9,9] cannot find symbol\r\n[ERROR] Failed to execute goal\n",
			"ERROR] /workspace/src/test/java/a/CapsuleReproductionTest.java:[9,9] cannot find symbol"},
		{"nothing about the file", "[INFO] BUILD FAILURE\n", ""},
		{"at most 20 lines", strings.Repeat(base+"\n", 30), strings.TrimSuffix(strings.Repeat(base+"\n", 20), "\n")},
	} {
		if got := compilerLines(tc.output, base); got != tc.want {
			t.Errorf("%s: compilerLines = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestOnlyFile(t *testing.T) {
	const file = "src/test/java/a/CapsuleReproductionTest.java"
	class := "### File: " + file + "\n```java\npackage a;\n```\n"
	for _, tc := range []struct {
		name, answer, want string
	}{
		{"the class alone", "Why.\n\n" + class, ""},
		{"a service file beside it", class + "\n### File: src/test/resources/META-INF/services/org.junit.platform.launcher.TestExecutionListener\n```\na.Forge\n```\n",
			"the answer also writes src/test/resources/META-INF/services/org.junit.platform.launcher.TestExecutionListener; the test is the one class in " + file},
		{"a second class", class + "\n### File: src/test/java/a/Helper.java\n```java\npackage a;\n```\n", "the answer also writes src/test/java/a/Helper.java"},
	} {
		if got := onlyFile(tc.answer, file); tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%s: onlyFile = %q, want %q", tc.name, got, tc.want)
		}
	}
}
