package store

import (
	"bytes"
	"errors"
	"testing"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/paging"
	"github.com/barrage-dev/barrage/services/api/internal/sealer"
)

// TestTestSecretsAreSealed: a stored test's secrets are only in its
// sealed_spec; the store gives the real spec back under the same key, and
// the redacted one with SealErr under another, so the test is still shown
// but cannot run. A spec without secrets is not sealed at all.
func TestTestSecretsAreSealed(t *testing.T) {
	t.Parallel()
	f := mustFixture(t)
	ctx := ctxT(t)
	secret := f.newTest(f.project.ID, "with secrets")
	secret.Spec.URL = "http://user:pa55-BBB@target.test/?token=tok-CCC"
	secret.Spec.Headers = []string{"Authorization: Bearer s3cr3t-AAA", "X-Trace: visible"}
	plain := f.newTest(f.project.ID, "without secrets")
	for _, tt := range []struct {
		name string
		in   func() error
	}{
		{"create", func() error { _, err := f.s.CreateTest(ctx, secret, f.actor); return err }},
		{"create plain", func() error { _, err := f.s.CreateTest(ctx, plain, f.actor); return err }},
		{"replace", func() error { _, err := f.s.ReplaceTest(ctx, secret, f.actor); return err }},
	} {
		if err := tt.in(); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
	}

	var stored, sealed []byte
	if err := f.s.DB().QueryRowContext(ctx, `SELECT spec::text, sealed_spec FROM tests WHERE id = $1`, secret.ID).Scan(&stored, &sealed); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"s3cr3t-AAA", "pa55-BBB", "tok-CCC"} {
		if bytes.Contains(stored, []byte(s)) || bytes.Contains(sealed, []byte(s)) {
			t.Errorf("the tests row holds %q in clear: spec %s", s, stored)
		}
	}
	if !bytes.Contains(stored, []byte("X-Trace: visible")) || len(sealed) == 0 {
		t.Errorf("spec %s, sealed_spec %d bytes; want the redacted spec and a sealed one", stored, len(sealed))
	}
	var plainSealed []byte
	if err := f.s.DB().QueryRowContext(ctx, `SELECT sealed_spec FROM tests WHERE id = $1`, plain.ID).Scan(&plainSealed); err != nil || plainSealed != nil {
		t.Errorf("a spec without secrets was sealed (%d bytes, %v)", len(plainSealed), err)
	}

	got, err := f.s.GetTest(ctx, secret.ID)
	if err != nil || got.SealErr != nil {
		t.Fatalf("GetTest: %v, seal error %v", err, got.SealErr)
	}
	if got.Spec.URL != secret.Spec.URL || got.Spec.Headers[0] != secret.Spec.Headers[0] {
		t.Errorf("GetTest spec %+v, want the real one", got.Spec)
	}

	// Another key (a restart without BARRAGE_SECRET_KEY, a wrong key).
	other := *f.s
	other.seal = sealer.Ephemeral()
	lost, err := other.GetTest(ctx, secret.ID)
	if err != nil || !errors.Is(lost.SealErr, sealer.ErrWrongKey) {
		t.Fatalf("GetTest under another key: %v, seal error %v; want ErrWrongKey", err, lost.SealErr)
	}
	if lost.Spec.URL != secret.Spec.Redacted().URL {
		t.Errorf("GetTest under another key: url %q, want the redacted one", lost.Spec.URL)
	}
	if _, err := lost.RunSpec(); !apperr.Is(err, apperr.Conflict) {
		t.Errorf("RunSpec of a test whose secrets are lost = %v, want a Conflict", err)
	}
	if p, err := other.GetTest(ctx, plain.ID); err != nil || p.SealErr != nil {
		t.Errorf("a test without secrets under another key: %v, seal error %v", err, p.SealErr)
	}
	if list, err := other.ListTests(ctx, nil, true, paging.Request{Limit: 10}); err != nil || len(list) != 2 {
		t.Errorf("ListTests under another key: %d tests, %v", len(list), err)
	}
}
