package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Amount is what an installation's jobs spent on the model in a day, or
// a budget of it: tokens and micro-dollars. A zero field of a budget is
// no limit.
type Amount struct {
	Tokens, Micros int64
}

// Spending keeps each installation's spend per day (a UTC date such as
// "2026-11-27"), which every replica sharing the store sees: the
// installations' budgets for the day. Both stores implement it.
type Spending interface {
	// Reserve adds add to installation's spend on day when the sums stay
	// within limit, and reports whether it did, with the spend after
	// (or, refused, as it was).
	Reserve(ctx context.Context, installation int64, day string, add, limit Amount) (Amount, bool, error)
	// Settle adds add (a negative field gives back) to installation's
	// spend on day, whatever the budget, never going below zero.
	Settle(ctx context.Context, installation int64, day string, add Amount) error
	// SpentOn is installation's spend on day.
	SpentOn(ctx context.Context, installation int64, day string) (Amount, error)
}

// The SQLite store keeps the spend.
var _ Spending = (*Store)(nil)

// Reserve adds add to installation's spend on day when it stays within
// limit (see Spending).
func (s *Store) Reserve(ctx context.Context, installation int64, day string, add, limit Amount) (Amount, bool, error) {
	var (
		after Amount
		ok    bool
	)
	err := s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO spend (installation, day, tokens, micros) VALUES (?, ?, 0, 0)
			ON CONFLICT (installation, day) DO NOTHING`, installation, day); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE spend SET tokens = tokens + ?1, micros = micros + ?2
			WHERE installation = ?3 AND day = ?4 AND (?5 = 0 OR tokens + ?1 <= ?5) AND (?6 = 0 OR micros + ?2 <= ?6)`,
			add.Tokens, add.Micros, installation, day, limit.Tokens, limit.Micros)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		ok = n == 1
		return tx.QueryRowContext(ctx, `SELECT tokens, micros FROM spend WHERE installation = ? AND day = ?`, installation, day).
			Scan(&after.Tokens, &after.Micros)
	})
	if err != nil {
		return Amount{}, false, fmt.Errorf("store: reserve the spend of installation %d on %s: %w", installation, day, err)
	}
	return after, ok, nil
}

// Settle adds add to installation's spend on day (see Spending).
func (s *Store) Settle(ctx context.Context, installation int64, day string, add Amount) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO spend (installation, day, tokens, micros) VALUES (?1, ?2, max(?3, 0), max(?4, 0))
			ON CONFLICT (installation, day) DO UPDATE SET tokens = max(tokens + ?3, 0), micros = max(micros + ?4, 0)`,
			installation, day, add.Tokens, add.Micros)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: settle the spend of installation %d on %s: %w", installation, day, err)
	}
	return nil
}

// SpentOn is installation's spend on day.
func (s *Store) SpentOn(ctx context.Context, installation int64, day string) (Amount, error) {
	var a Amount
	err := s.r.QueryRowContext(ctx, `SELECT tokens, micros FROM spend WHERE installation = ? AND day = ?`, installation, day).
		Scan(&a.Tokens, &a.Micros)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return Amount{}, fmt.Errorf("store: the spend of installation %d on %s: %w", installation, day, err)
	}
	return a, nil
}
