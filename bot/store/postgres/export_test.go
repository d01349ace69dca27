package postgres

import "time"

// SetClock makes s tell the time with now, for the shared suite.
func SetClock(s *Store, now func() time.Time) { s.now = now }

// SetMigrating sets the hook migrate calls inside its lock, for the
// duration of a test.
func SetMigrating(hook func(found int)) func() {
	migrating = hook
	return func() { migrating = nil }
}

// The queries TestQueryPlans explains.
const (
	ClaimableQuery = claimableQuery
	ActiveQuery    = activeQuery
	RoundQuery     = roundQuery
	IssueQuery     = issueQuery
)

// FirstMigration is the DDL of schema version 1, for a test to build a
// database as the first release of the PostgreSQL store left it.
var FirstMigration = migrations[0]
