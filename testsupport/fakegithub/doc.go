// Package fakegithub is an in-memory, stateful fake of the parts of GitHub's
// REST API that Capsule uses, for tests that cannot reach GitHub.
//
// Every request is checked against GitHub's OpenAPI description (the full
// api.github.com description in testsupport/testdata/openapi): an unknown path or
// method, a missing or mistyped parameter, or a JSON body that does not match
// the operation's schema is a violation. A violation fails the test through
// t.Errorf (or goes to the handler given with WithViolationHandler) and gets
// the error answer GitHub would give. The fake also answers the way GitHub
// does for the state it keeps: repositories with real git objects (blob, tree
// and commit ids are the ones git computes), refs, tarballs, contents,
// collaborator permissions, issues, comments, labels and pull requests, with
// GitHub App and token authentication.
//
// Start one with New, point a go-github client at URL (or use Client), seed
// it with AddRepo, AddIssue, AddInstallation and SetPermission, and inspect it
// afterwards with Repo, Requests and Violations. Fault injection (FailNext,
// FailAlways, Inject) makes chosen requests fail for retry tests.
//
// Responses carry the fields the fake models with real values; any other
// field the description marks required is filled with a neutral placeholder
// (zero, empty string, null where allowed), so that responses satisfy the
// description's response schemas. WithResponseValidation checks that.
package fakegithub
