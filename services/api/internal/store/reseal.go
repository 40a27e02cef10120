package store

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"

	"gorm.io/gorm"
)

// DefaultResealBatch is how many rows ResealSecrets re-seals per
// transaction when the caller gives no batch size.
const DefaultResealBatch = 100

// ResealCounts counts the sealed values of one table.
type ResealCounts struct {
	// Resealed were sealed under an older key (or format) and are now
	// sealed under the current key.
	Resealed int
	// Current were already sealed under the current key and left alone.
	Current int
	// Failed could not be opened (a key that is not configured, or corrupt
	// data) and were left as they are.
	Failed int
}

// ResealReport is what ResealSecrets did to each sealed column.
type ResealReport struct {
	// Tests counts tests.sealed_spec.
	Tests ResealCounts
	// Outbox counts the sealed_spec of outbox payloads.
	Outbox ResealCounts
	// Searches counts searches.sealed_spec.
	Searches ResealCounts
	// RemoteWrites counts remote_writes.sealed_secrets.
	RemoteWrites ResealCounts
	// Errors describe the failed values, at most one per row.
	Errors []string
}

// ErrResealIncomplete means some sealed values could not be re-sealed: the
// keys that sealed them must not be retired yet.
var ErrResealIncomplete = errors.New("some sealed values could not be opened and were left as they are")

// ResealSecrets re-seals every sealed column (tests.sealed_spec, the
// sealed_spec of outbox payloads, searches.sealed_spec and
// remote_writes.sealed_secrets) under the store's current key, batch rows
// per transaction, rows locked while they are rewritten. Values already
// under the current key are left alone, so running it again changes
// nothing. It reports the counts, and ErrResealIncomplete when a value
// could not be opened.
func (s *Store) ResealSecrets(ctx context.Context, batch int) (ResealReport, error) {
	if batch <= 0 {
		batch = DefaultResealBatch
	}
	var rep ResealReport
	if err := s.resealTests(ctx, batch, &rep); err != nil {
		return rep, err
	}
	if err := s.resealOutbox(ctx, batch, &rep); err != nil {
		return rep, err
	}
	if err := s.resealSearches(ctx, batch, &rep); err != nil {
		return rep, err
	}
	if err := s.resealRemoteWrites(ctx, batch, &rep); err != nil {
		return rep, err
	}
	if len(rep.Errors) > 0 {
		return rep, ErrResealIncomplete
	}
	return rep, nil
}

// sealedRow is one sealed value and the key of its row.
type sealedRow struct {
	ID     string `gorm:"column:id"`
	Sealed []byte `gorm:"column:sealed"`
}

// resealTests re-seals tests.sealed_spec, in batches ordered by id.
func (s *Store) resealTests(ctx context.Context, batch int, rep *ResealReport) error {
	return s.resealTable(ctx, batch, rep, &rep.Tests, resealQueries{
		what:   "test",
		start:  "",
		read:   `SELECT id::text AS id, sealed_spec AS sealed FROM tests WHERE sealed_spec IS NOT NULL AND id::text > ? ORDER BY id::text LIMIT ? FOR UPDATE`,
		update: `UPDATE tests SET sealed_spec = ? WHERE id = ?::uuid`,
		decode: func(b []byte) ([]byte, error) { return b, nil },
		encode: func(b []byte) any { return b },
	})
}

// resealSearches re-seals searches.sealed_spec, in batches ordered by id.
func (s *Store) resealSearches(ctx context.Context, batch int, rep *ResealReport) error {
	return s.resealTable(ctx, batch, rep, &rep.Searches, resealQueries{
		what:   "search",
		start:  "",
		read:   `SELECT id::text AS id, sealed_spec AS sealed FROM searches WHERE sealed_spec IS NOT NULL AND id::text > ? ORDER BY id::text LIMIT ? FOR UPDATE`,
		update: `UPDATE searches SET sealed_spec = ? WHERE id = ?::uuid`,
		decode: func(b []byte) ([]byte, error) { return b, nil },
		encode: func(b []byte) any { return b },
	})
}

// resealRemoteWrites re-seals remote_writes.sealed_secrets, in batches
// ordered by project.
func (s *Store) resealRemoteWrites(ctx context.Context, batch int, rep *ResealReport) error {
	return s.resealTable(ctx, batch, rep, &rep.RemoteWrites, resealQueries{
		what:   "remote write",
		start:  "",
		read:   `SELECT project_id::text AS id, sealed_secrets AS sealed FROM remote_writes WHERE project_id::text > ? ORDER BY project_id::text LIMIT ? FOR UPDATE`,
		update: `UPDATE remote_writes SET sealed_secrets = ? WHERE project_id = ?::uuid`,
		decode: func(b []byte) ([]byte, error) { return b, nil },
		encode: func(b []byte) any { return b },
	})
}

// resealOutbox re-seals the sealed_spec of outbox payloads (base64 in the
// JSON), published or not, in batches ordered by id.
func (s *Store) resealOutbox(ctx context.Context, batch int, rep *ResealReport) error {
	return s.resealTable(ctx, batch, rep, &rep.Outbox, resealQueries{
		what:  "outbox row",
		start: "0",
		read: `SELECT id::text AS id, convert_to(payload->>'sealed_spec', 'UTF8') AS sealed FROM outbox
			WHERE payload->>'sealed_spec' IS NOT NULL AND id > ?::bigint ORDER BY id LIMIT ? FOR UPDATE`,
		update: `UPDATE outbox SET payload = jsonb_set(payload, '{sealed_spec}', to_jsonb(?::text)) WHERE id = ?::bigint`,
		decode: func(b []byte) ([]byte, error) { return base64.StdEncoding.DecodeString(string(b)) },
		encode: func(b []byte) any { return base64.StdEncoding.EncodeToString(b) },
	})
}

// resealQueries are the statements and encodings of one sealed column.
// read takes the last id of the previous batch (start for the first) and
// the batch size; update the new value and the id.
type resealQueries struct {
	what, start  string
	read, update string
	decode       func([]byte) ([]byte, error)
	encode       func([]byte) any
}

// resealTable walks the rows of q.read batch by batch, each batch in its
// own transaction.
func (s *Store) resealTable(ctx context.Context, batch int, rep *ResealReport, counts *ResealCounts, q resealQueries) error {
	last := q.start
	for {
		n := 0
		err := s.inTx(ctx, func(tx *gorm.DB) error {
			var rows []sealedRow
			if err := tx.Raw(q.read, last, batch).Scan(&rows).Error; err != nil {
				return fmt.Errorf("read sealed %ss: %w", q.what, err)
			}
			n = len(rows)
			for _, r := range rows {
				last = r.ID
				if err := s.resealRow(tx, r, rep, counts, q); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		if n < batch {
			return nil
		}
	}
}

// resealRow re-seals one value unless it is current or cannot be opened.
func (s *Store) resealRow(tx *gorm.DB, r sealedRow, rep *ResealReport, counts *ResealCounts, q resealQueries) error {
	blob, err := q.decode(r.Sealed)
	if err == nil {
		var changed bool
		blob, changed, err = s.seal.Reseal(blob)
		if err == nil && !changed {
			counts.Current++
			return nil
		}
	}
	if err != nil {
		counts.Failed++
		rep.Errors = append(rep.Errors, fmt.Sprintf("%s %s: %v", q.what, r.ID, err))
		return nil
	}
	if err := tx.Exec(q.update, q.encode(blob), r.ID).Error; err != nil {
		return fmt.Errorf("update sealed %s %s: %w", q.what, r.ID, err)
	}
	counts.Resealed++
	return nil
}
