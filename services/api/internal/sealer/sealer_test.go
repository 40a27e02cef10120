package sealer_test

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/services/api/internal/sealer"
)

func mustParse(tb testing.TB, key string, previous ...string) *sealer.Sealer {
	tb.Helper()
	s, err := sealer.Parse(key, previous...)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func TestSealRoundTrip(t *testing.T) {
	t.Parallel()
	s := mustParse(t, sealer.NewKey())
	tests := []struct {
		name  string
		plain []byte
	}{
		{"empty", nil},
		{"spec", []byte(`{"url":"http://user:pa55@host/?token=t","headers":["Authorization: Bearer s3cr3t"]}`)},
		{"binary", bytes.Repeat([]byte{0, 0xff}, 4096)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			blob := s.Seal(tt.plain)
			if len(tt.plain) > 8 && bytes.Contains(blob, tt.plain[:8]) {
				t.Errorf("sealed blob holds the plain text")
			}
			got, err := s.Open(blob)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			if !bytes.Equal(got, tt.plain) {
				t.Errorf("Open = %q, want %q", got, tt.plain)
			}
			if again := s.Seal(tt.plain); bytes.Equal(again, blob) {
				t.Error("two seals of the same text are equal; the nonce is not random")
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	t.Parallel()
	key := sealer.NewKey()
	s := mustParse(t, key)
	blob := s.Seal([]byte("Authorization: Bearer s3cr3t"))
	tamper := func(i int) []byte {
		b := bytes.Clone(blob)
		b[i] ^= 1
		return b
	}
	tests := []struct {
		name   string
		opener *sealer.Sealer
		blob   []byte
		want   error
	}{
		{"wrong key", sealer.Ephemeral(), blob, sealer.ErrWrongKey},
		{"tampered ciphertext", s, tamper(len(blob) - 20), sealer.ErrCorrupt},
		{"tampered tag", s, tamper(len(blob) - 1), sealer.ErrCorrupt},
		{"tampered nonce", s, tamper(13), sealer.ErrCorrupt},
		{"tampered key id", s, tamper(4), sealer.ErrWrongKey},
		{"tampered version", s, tamper(3), sealer.ErrWrongKey},
		{"truncated", s, blob[:20], sealer.ErrCorrupt},
		{"empty", s, nil, sealer.ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.opener.Open(tt.blob)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Open = %q, %v; want %v", got, err, tt.want)
			}
		})
	}
	// The same key given again opens it: the id depends on the key only.
	if _, err := mustParse(t, key).Open(blob); err != nil {
		t.Errorf("Open with the same key parsed again: %v", err)
	}
}

func TestParseKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		ok   bool
	}{
		{"new key", sealer.NewKey(), true},
		{"surrounding space", " " + sealer.NewKey() + "\n", true},
		{"empty", "", false},
		{"not base64", strings.Repeat("!", 44), false},
		{"16 bytes", base64.StdEncoding.EncodeToString(make([]byte, 16)), false},
		{"33 bytes", base64.StdEncoding.EncodeToString(make([]byte, 33)), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := sealer.Parse(tt.text)
			if (err == nil) != tt.ok {
				t.Fatalf("Parse(%q) error %v, want ok=%v", tt.text, err, tt.ok)
			}
			if err != nil && strings.Contains(err.Error(), tt.text) && tt.text != "" {
				t.Errorf("error %q repeats the key", err)
			}
		})
	}
}

// legacyKey sealed testdata/legacy-00006.hex with the sealer of migration
// 00006 (format 0: key id, nonce, ciphertext).
const legacyKey = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="

// legacyPlain is what testdata/legacy-00006.hex holds.
const legacyPlain = `{"url":"http://user:pa55@host/?token=t","headers":["Authorization: Bearer s3cr3t"]}`

// mustLegacyBlob reads the format 0 blob of testdata.
func mustLegacyBlob(tb testing.TB) []byte {
	tb.Helper()
	text, err := os.ReadFile(filepath.Join("testdata", "legacy-00006.hex"))
	if err != nil {
		tb.Fatal(err)
	}
	blob, err := hex.DecodeString(strings.TrimSpace(string(text)))
	if err != nil {
		tb.Fatal(err)
	}
	return blob
}

func TestOpenFormat0(t *testing.T) {
	t.Parallel()
	blob := mustLegacyBlob(t)
	newKey := sealer.NewKey()
	for _, tt := range []struct {
		name string
		s    *sealer.Sealer
	}{
		{"legacy key current", mustParse(t, legacyKey)},
		{"legacy key previous", mustParse(t, newKey, sealer.NewKey(), legacyKey)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.s.Open(blob)
			if err != nil || string(got) != legacyPlain {
				t.Fatalf("Open = %q, %v; want %q", got, err, legacyPlain)
			}
			if tt.s.IsCurrent(blob) {
				t.Error("a format 0 blob is reported current")
			}
			re, changed, err := tt.s.Reseal(blob)
			if err != nil || !changed || !tt.s.IsCurrent(re) || !bytes.HasPrefix(re, []byte("brs\x01")) {
				t.Fatalf("Reseal = %x, %v, %v; want a current format 1 blob", re, changed, err)
			}
			if got, err := tt.s.Open(re); err != nil || string(got) != legacyPlain {
				t.Errorf("Open(resealed) = %q, %v", got, err)
			}
		})
	}
}

func TestRotation(t *testing.T) {
	t.Parallel()
	keyA, keyB := sealer.NewKey(), sealer.NewKey()
	onlyA := mustParse(t, keyA)
	blobA := onlyA.Seal([]byte("secret of A"))

	// B current, A previous: opens A's blob, seals under B.
	rotated := mustParse(t, keyB, keyA)
	if got, err := rotated.Open(blobA); err != nil || string(got) != "secret of A" {
		t.Fatalf("Open(A blob) with A previous = %q, %v", got, err)
	}
	if ids := rotated.PreviousKeyIDs(); len(ids) != 1 || ids[0] != onlyA.KeyID() {
		t.Errorf("PreviousKeyIDs = %v, want [%s]", ids, onlyA.KeyID())
	}
	blobB, changed, err := rotated.Reseal(blobA)
	if err != nil || !changed {
		t.Fatalf("Reseal = %v, %v", changed, err)
	}
	again, changed, err := rotated.Reseal(blobB)
	if err != nil || changed || !bytes.Equal(again, blobB) {
		t.Errorf("Reseal of a current blob = changed %v, %v; want it unchanged", changed, err)
	}

	// Only B: opens the resealed blob, refuses A's naming its key id.
	onlyB := mustParse(t, keyB)
	if got, err := onlyB.Open(blobB); err != nil || string(got) != "secret of A" {
		t.Errorf("Open(resealed) with B only = %q, %v", got, err)
	}
	got, err := onlyB.Open(blobA)
	if !errors.Is(err, sealer.ErrWrongKey) || got != nil {
		t.Fatalf("Open(A blob) with B only = %q, %v; want ErrWrongKey", got, err)
	}
	if !strings.Contains(err.Error(), "key id "+onlyA.KeyID()) || !strings.Contains(err.Error(), onlyB.KeyID()) {
		t.Errorf("error %q does not name the blob's key id %s and the server's %s", err, onlyA.KeyID(), onlyB.KeyID())
	}
	if _, _, err := onlyB.Reseal(blobA); !errors.Is(err, sealer.ErrWrongKey) {
		t.Errorf("Reseal(A blob) with B only = %v, want ErrWrongKey", err)
	}
	if _, err := sealer.Parse(keyB, "c2hvcnQ="); err == nil || !strings.Contains(err.Error(), "previous key 1") {
		t.Errorf("Parse with a bad previous key = %v, want an error naming it", err)
	}
}

// FuzzOpen opens arbitrary stored bytes: Open never panics, fails only with
// ErrWrongKey or ErrCorrupt, and whatever it opens it opens again the same.
func FuzzOpen(f *testing.F) {
	s := mustParse(f, legacyKey)
	f.Add(mustLegacyBlob(f))
	f.Add(s.Seal([]byte("plain")))
	f.Add([]byte("brs\x01"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, blob []byte) {
		plain, err := s.Open(blob)
		if err != nil {
			if plain != nil || (!errors.Is(err, sealer.ErrWrongKey) && !errors.Is(err, sealer.ErrCorrupt)) {
				t.Fatalf("Open = %q, %v; want nil and ErrWrongKey or ErrCorrupt", plain, err)
			}
			return
		}
		re, _, err := s.Reseal(blob)
		if err != nil {
			t.Fatalf("Reseal of an openable blob: %v", err)
		}
		if got, err := s.Open(re); err != nil || !bytes.Equal(got, plain) {
			t.Fatalf("Open(Reseal) = %q, %v; want %q", got, err, plain)
		}
	})
}
