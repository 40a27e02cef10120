package store

import (
	"encoding/base64"
	"errors"
	"fmt"
	"testing"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/sealer"
)

// TestResealSecrets: with key B current and key A previous, ResealSecrets
// re-seals the tests and outbox payloads sealed under A so that B alone
// opens them; a second pass changes nothing; a value of a key that is not
// configured is counted, left alone and reported.
func TestResealSecrets(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	keyA, keyB, keyC := sealer.NewKey(), sealer.NewKey(), sealer.NewKey()
	mustSealer := func(current string, previous ...string) *sealer.Sealer {
		s, err := sealer.Parse(current, previous...)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	underA := *f.s
	underA.seal = mustSealer(keyA)

	var ids []uuid.UUID
	for i := range 3 { // more than one batch of 2
		tt := f.newTest(f.project.ID, fmt.Sprintf("sealed %d", i))
		tt.Spec.Headers = []string{fmt.Sprintf("Authorization: Bearer s3cr3t-%d", i)}
		if _, err := underA.CreateTest(ctx, tt, f.actor); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, tt.ID)
	}
	for i, blob := range [][]byte{underA.seal.Seal([]byte("outbox secret")), mustSealer(keyC).Seal([]byte("lost"))} {
		payload := fmt.Sprintf(`{"run_id":"r%d","sealed_spec":%q}`, i, base64.StdEncoding.EncodeToString(blob))
		if _, err := f.s.DB().ExecContext(ctx, `INSERT INTO outbox (topic, key, payload) VALUES ('test', $1, $2::jsonb)`, fmt.Sprint(i), payload); err != nil {
			t.Fatal(err)
		}
	}
	search := underA.sealedSearch(t, f)
	// An outbox payload without a sealed spec is not touched.
	if _, err := f.s.DB().ExecContext(ctx, `INSERT INTO outbox (topic, key, payload) VALUES ('test', 'plain', '{"run_id":"p"}')`); err != nil {
		t.Fatal(err)
	}

	rotated := *f.s
	rotated.seal = mustSealer(keyB, keyA)
	rep, err := rotated.ResealSecrets(ctx, 2)
	if !errors.Is(err, ErrResealIncomplete) {
		t.Fatalf("ResealSecrets = %v, want ErrResealIncomplete for the row of key C", err)
	}
	want := ResealReport{Tests: ResealCounts{Resealed: 3}, Outbox: ResealCounts{Resealed: 1, Failed: 1}}
	if rep.Tests != want.Tests || rep.Outbox != want.Outbox || rep.Searches != (ResealCounts{Resealed: 1}) || len(rep.Errors) != 1 {
		t.Fatalf("report %+v, want %+v and one error", rep, want)
	}
	rep, err = rotated.ResealSecrets(ctx, 2)
	if want := (ResealCounts{Current: 3}); !errors.Is(err, ErrResealIncomplete) || rep.Tests != want || rep.Outbox != (ResealCounts{Current: 1, Failed: 1}) || rep.Searches != (ResealCounts{Current: 1}) {
		t.Fatalf("second pass: %+v, %v; want everything current", rep, err)
	}

	onlyB := *f.s
	onlyB.seal = mustSealer(keyB)
	if sp, err := onlyB.SearchSpec(ctx, search); err != nil || len(sp.Headers) != 1 {
		t.Fatalf("the search's spec under key B alone: %v, %v", sp.Headers, err)
	}
	for i, id := range ids {
		var blob []byte
		if err := f.s.DB().QueryRowContext(ctx, `SELECT sealed_spec FROM tests WHERE id = $1`, id).Scan(&blob); err != nil {
			t.Fatal(err)
		}
		if !onlyB.seal.IsCurrent(blob) {
			t.Errorf("test %d is not sealed under B", i)
		}
		got, err := onlyB.GetTest(ctx, id)
		if err != nil || got.SealErr != nil || got.Spec.Headers[0] != fmt.Sprintf("Authorization: Bearer s3cr3t-%d", i) {
			t.Errorf("GetTest %d under B only: %v, seal error %v, headers %q", i, err, got.SealErr, got.Spec.Headers)
		}
	}
	var sealed string
	if err := f.s.DB().QueryRowContext(ctx, `SELECT payload->>'sealed_spec' FROM outbox WHERE key = '0'`).Scan(&sealed); err != nil {
		t.Fatal(err)
	}
	blob, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := onlyB.seal.Open(blob); err != nil || string(got) != "outbox secret" {
		t.Errorf("outbox payload under B only = %q, %v", got, err)
	}
	var plain string
	if err := f.s.DB().QueryRowContext(ctx, `SELECT payload::text FROM outbox WHERE key = 'plain'`).Scan(&plain); err != nil || plain != `{"run_id": "p"}` {
		t.Errorf("plain outbox payload = %s, %v", plain, err)
	}
}
