package sealer_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/services/api/internal/sealer"
)

func mustParse(tb testing.TB, key string) *sealer.Sealer {
	tb.Helper()
	s, err := sealer.Parse(key)
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
		{"tampered nonce", s, tamper(9), sealer.ErrCorrupt},
		{"tampered key id", s, tamper(0), sealer.ErrWrongKey},
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
