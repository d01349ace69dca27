package agent

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCollectReports(t *testing.T) {
	dir := t.TempDir()
	makeTree(t, dir,
		entry{name: "junit.xml", content: "<testsuite/>"},
		entry{name: "m/target/surefire-reports/TEST-a.xml", content: "a"},
		entry{name: "m/target/surefire-reports/a.txt", content: "not a report"},
		entry{name: "node_modules/x/junit.xml", content: "skipped"},
		entry{name: "old/junit.xml", content: "stale"},
		entry{name: "linked.xml", link: "/etc/passwd"})
	start := time.Now()
	stale := start.Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "old/junit.xml"), stale, stale); err != nil {
		t.Fatal(err)
	}
	globs := []string{"junit.xml", "**/target/surefire-reports/TEST-*.xml", "old/*.xml", "*.xml", "**/node_modules/**"}
	archive, cut, err := collectReports(dir, globs, start.Add(-time.Minute))
	if err != nil || cut {
		t.Fatalf("collectReports = %v, cut %v", err, cut)
	}
	files, err := ReadReportFiles(archive)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for name, data := range files {
		got[name] = string(data)
	}
	want := map[string]string{"junit.xml": "<testsuite/>", "m/target/surefire-reports/TEST-a.xml": "a"}
	if !maps.Equal(got, want) {
		t.Errorf("collected %q, want %q (no stale file, no link, nothing in node_modules)", got, want)
	}
}

func TestCollectReportsBounds(t *testing.T) {
	t.Run("files", func(t *testing.T) {
		dir := t.TempDir()
		for i := range MaxReportFiles + 1 {
			makeTree(t, dir, entry{name: fmt.Sprintf("r/%04d.xml", i), content: "x"})
		}
		archive, cut, err := collectReports(dir, []string{"r/*.xml"}, time.Time{})
		files, _ := ReadReportFiles(archive)
		if err != nil || !cut || len(files) != MaxReportFiles {
			t.Errorf("%d files: %d collected, cut %v, %v", MaxReportFiles+1, len(files), cut, err)
		}
	})
	t.Run("bytes", func(t *testing.T) {
		dir := t.TempDir()
		big := strings.Repeat("x", MaxReportFileBytes/2+1)
		makeTree(t, dir, entry{name: "a.xml", content: big}, entry{name: "b.xml", content: big})
		archive, cut, err := collectReports(dir, []string{"*.xml"}, time.Time{})
		files, _ := ReadReportFiles(archive)
		if err != nil || !cut || len(files) != 1 {
			t.Errorf("two files of %d bytes: %d collected, cut %v, %v", len(big), len(files), cut, err)
		}
	})
}
