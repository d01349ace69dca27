package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/capsulehq/capsule/bot/store"
)

// The PostgreSQL store keeps the spend, which its replicas share.
var _ store.Spending = (*Store)(nil)

// Reserve adds add to installation's spend on day when it stays within
// limit (see store.Spending). The conditional update holds the row's
// lock, so that replicas reserving at once never pass the limit
// together.
func (s *Store) Reserve(ctx context.Context, installation int64, day string, add, limit store.Amount) (store.Amount, bool, error) {
	var (
		after store.Amount
		ok    bool
	)
	err := s.tx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO spend (installation, day, tokens, micros) VALUES ($1, $2, 0, 0)
			ON CONFLICT (installation, day) DO NOTHING`, installation, day); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `UPDATE spend SET tokens = tokens + $1::bigint, micros = micros + $2::bigint
			WHERE installation = $3 AND day = $4 AND ($5::bigint = 0 OR tokens + $1::bigint <= $5::bigint)
			AND ($6::bigint = 0 OR micros + $2::bigint <= $6::bigint)`,
			add.Tokens, add.Micros, installation, day, limit.Tokens, limit.Micros)
		if err != nil {
			return err
		}
		ok = tag.RowsAffected() == 1
		return tx.QueryRow(ctx, `SELECT tokens, micros FROM spend WHERE installation = $1 AND day = $2`, installation, day).
			Scan(&after.Tokens, &after.Micros)
	})
	if err != nil {
		return store.Amount{}, false, fmt.Errorf("store: reserve the spend of installation %d on %s: %w", installation, day, err)
	}
	return after, ok, nil
}

// Settle adds add to installation's spend on day (see store.Spending).
func (s *Store) Settle(ctx context.Context, installation int64, day string, add store.Amount) error {
	err := s.tx(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO spend (installation, day, tokens, micros) VALUES ($1, $2, greatest($3::bigint, 0), greatest($4::bigint, 0))
			ON CONFLICT (installation, day) DO UPDATE
			SET tokens = greatest(spend.tokens + $3::bigint, 0), micros = greatest(spend.micros + $4::bigint, 0)`,
			installation, day, add.Tokens, add.Micros)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: settle the spend of installation %d on %s: %w", installation, day, err)
	}
	return nil
}

// SpentOn is installation's spend on day.
func (s *Store) SpentOn(ctx context.Context, installation int64, day string) (store.Amount, error) {
	if s.closed.Load() {
		return store.Amount{}, store.ErrClosed
	}
	var a store.Amount
	err := s.pool.QueryRow(ctx, `SELECT tokens, micros FROM spend WHERE installation = $1 AND day = $2`, installation, day).
		Scan(&a.Tokens, &a.Micros)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return store.Amount{}, fmt.Errorf("store: the spend of installation %d on %s: %w", installation, day, err)
	}
	return a, nil
}
