package server

import (
	"testing"

	"github.com/capsulehq/capsule/testsupport/pgtest"
)

// TestMain stops the PostgreSQL cluster of the replica tests, if they
// started one.
func TestMain(m *testing.M) { pgtest.Main(m) }
