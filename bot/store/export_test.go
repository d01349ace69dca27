package store

import "time"

// SetClock makes s tell the time with now, for the shared suite.
func SetClock(s *Store, now func() time.Time) { s.now = now }
