package store_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/capsulehq/capsule/bot/store"
	"github.com/capsulehq/capsule/bot/store/storetest"
)

func TestSuite(t *testing.T) {
	storetest.Run(t, func(t *testing.T, now func() time.Time) storetest.Store {
		s, err := store.Open(filepath.Join(t.TempDir(), "capsule.db"))
		if err != nil {
			t.Fatal(err)
		}
		store.SetClock(s, now)
		t.Cleanup(func() {
			if err := s.Close(); err != nil {
				t.Error(err)
			}
		})
		return s
	})
}
