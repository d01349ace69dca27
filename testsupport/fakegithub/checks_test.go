package fakegithub

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/google/go-github/v88/github"
)

func TestCheckRuns(t *testing.T) {
	s := newServer(t)
	repo := s.AddRepo("octo", "calc", map[string]string{"calc.py": "x = 1\n"})
	head, err := repo.Push("capsule/issue-1", "Fix", map[string]string{"calc.py": "x = 2\n"})
	if err != nil {
		t.Fatal(err)
	}
	lint := repo.AddCheckRun(CheckRun{
		Name: "lint", HeadSHA: head, Conclusion: "failure", Title: "1 error", Summary: "flake8 found 1 error",
		Annotations: []Annotation{{Path: "calc.py", StartLine: 1, EndLine: 1, Level: "failure", Title: "F821", Message: "undefined name 'y'"}},
	})
	repo.AddCheckRun(CheckRun{Name: "build", HeadSHA: head, Conclusion: "success"})
	repo.AddCheckRun(CheckRun{Name: "slow", HeadSHA: head, Status: "in_progress"})
	gh := tokenClient(s, staticToken)
	ctx := context.Background()

	for _, tc := range []struct {
		name string
		opts *github.ListCheckRunsOptions
		want []string
	}{
		{"all", nil, []string{"lint", "build", "slow"}},
		{"completed", &github.ListCheckRunsOptions{Status: github.Ptr("completed")}, []string{"lint", "build"}},
		{"by name", &github.ListCheckRunsOptions{CheckName: github.Ptr("lint")}, []string{"lint"}},
	} {
		res, _, err := gh.Checks.ListCheckRunsForRef(ctx, "octo", "calc", "capsule/issue-1", tc.opts)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var got []string
		for _, cr := range res.CheckRuns {
			got = append(got, cr.GetName())
		}
		if res.GetTotal() != len(tc.want) || len(got) != len(tc.want) || got[0] != tc.want[0] {
			t.Errorf("%s: check runs %v (total %d), want %v", tc.name, got, res.GetTotal(), tc.want)
		}
	}
	inSuite, _, err := gh.Checks.ListCheckRunsCheckSuite(ctx, "octo", "calc", lint.SuiteID, nil)
	if err != nil || inSuite.GetTotal() != 1 || inSuite.CheckRuns[0].GetOutput().GetSummary() != "flake8 found 1 error" || inSuite.CheckRuns[0].GetConclusion() != "failure" {
		t.Errorf("ListCheckRunsCheckSuite = %+v, %v", inSuite, err)
	}
	notes, _, err := gh.Checks.ListCheckRunAnnotations(ctx, "octo", "calc", lint.ID, nil)
	if err != nil || len(notes) != 1 || notes[0].GetMessage() != "undefined name 'y'" || notes[0].GetStartLine() != 1 {
		t.Errorf("ListCheckRunAnnotations = %v, %v", notes, err)
	}
	var er *github.ErrorResponse
	if _, _, err := gh.Checks.ListCheckRunAnnotations(ctx, "octo", "calc", 999999, nil); !errors.As(err, &er) || er.Response.StatusCode != 404 {
		t.Errorf("annotations of no run: %v, want 404", err)
	}
}

func TestWorkflowRuns(t *testing.T) {
	s := newServer(t)
	repo := s.AddRepo("octo", "calc", map[string]string{"calc.py": "x = 1\n"})
	main, _ := repo.Commit("main")
	head, err := repo.Push("capsule/issue-1", "Fix", map[string]string{"calc.py": "x = 2\n"})
	if err != nil {
		t.Fatal(err)
	}
	const log = "2024-01-01T00:00:00.0000000Z ##[group]Run pytest\n2024-01-01T00:00:01.0000000Z E   assert 2 == 3\n2024-01-01T00:00:01.0000000Z ##[error]Process completed with exit code 1.\n"
	run := repo.AddWorkflowRun(WorkflowRun{
		Name: "CI", HeadBranch: "capsule/issue-1", HeadSHA: head, Event: "pull_request", Conclusion: "failure",
		Jobs: []WorkflowJob{
			{Name: "test", Conclusion: "failure", Steps: []WorkflowStep{{"Set up job", "success"}, {"Run pytest", "failure"}}, Log: log},
			{Name: "lint", Conclusion: "success"},
		},
	})
	repo.AddWorkflowRun(WorkflowRun{Name: "CI", HeadBranch: "main", HeadSHA: main.SHA, Conclusion: "success"})
	gh := tokenClient(s, staticToken)
	ctx := context.Background()

	got, _, err := gh.Actions.GetWorkflowRunByID(ctx, "octo", "calc", run.ID)
	if err != nil || got.GetConclusion() != "failure" || got.GetHeadSHA() != head || got.GetHeadCommit().GetMessage() != "Fix" {
		t.Fatalf("GetWorkflowRunByID = %+v, %v", got, err)
	}
	onMain, _, err := gh.Actions.ListRepositoryWorkflowRuns(ctx, "octo", "calc", &github.ListWorkflowRunsOptions{Branch: "main"})
	if err != nil || onMain.GetTotalCount() != 1 || onMain.WorkflowRuns[0].GetHeadSHA() != main.SHA {
		t.Errorf("runs on main = %+v, %v", onMain, err)
	}
	jobs, _, err := gh.Actions.ListWorkflowJobs(ctx, "octo", "calc", run.ID, nil)
	if err != nil || jobs.GetTotalCount() != 2 || jobs.Jobs[0].GetConclusion() != "failure" || jobs.Jobs[0].Steps[1].GetName() != "Run pytest" {
		t.Fatalf("ListWorkflowJobs = %+v, %v", jobs, err)
	}
	link, _, err := gh.Actions.GetWorkflowJobLogs(ctx, "octo", "calc", jobs.Jobs[0].GetID(), 2)
	if err != nil {
		t.Fatalf("GetWorkflowJobLogs: %v", err)
	}
	resp, err := http.Get(link.String())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(body) != log {
		t.Errorf("job log download: %s %q", resp.Status, body)
	}
	if _, resp, err := gh.Actions.GetWorkflowJobLogs(ctx, "octo", "calc", 999999, 2); err == nil || resp == nil || resp.StatusCode != 404 {
		t.Errorf("logs of no job: %v, want 404", err)
	}
}
