package auth

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"strings"
	"testing"
)

func TestNewToken(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 50 {
		tok := NewToken()
		if len(tok.Text) != TokenLength || TokenLength != 52 {
			t.Fatalf("token %q has %d characters, want %d = 52", tok.Text, len(tok.Text), TokenLength)
		}
		if !strings.HasPrefix(tok.Text, TokenPrefix) || TokenPrefix != "brg_" {
			t.Fatalf("token %q does not start with brg_", tok.Text)
		}
		if want := sha256.Sum256([]byte(tok.Text)); !bytes.Equal(tok.Hash, want[:]) {
			t.Errorf("hash of %q is not its SHA-256", tok.Text)
		}
		if tok.Hint != tok.Text[:10] {
			t.Errorf("hint = %q, want %q", tok.Hint, tok.Text[:10])
		}
		hash, err := ParseToken(tok.Text)
		if err != nil || !bytes.Equal(hash, tok.Hash) {
			t.Errorf("ParseToken(%q) = %x, %v; want its hash", tok.Text, hash, err)
		}
		if seen[tok.Text] {
			t.Fatalf("NewToken repeated %q", tok.Text)
		}
		seen[tok.Text] = true
	}
}

// replaceAt returns s with the character at i replaced by c.
func replaceAt(s string, i int, c byte) string {
	b := []byte(s)
	b[i] = c
	return string(b)
}

// otherBase64 returns a base64url character other than c.
func otherBase64(c byte) byte {
	if c == 'A' {
		return 'B'
	}
	return 'A'
}

func TestParseTokenRejects(t *testing.T) {
	t.Parallel()
	good := NewToken().Text
	body := good[len(TokenPrefix):]
	last := len(good) - 1
	tests := []struct {
		name, text string
	}{
		{"empty", ""},
		{"prefix only", TokenPrefix},
		{"wrong prefix", "brx_" + body},
		{"upper-case prefix", "BRG_" + body},
		{"no prefix", body + "abcd"},
		{"one character short", good[:last]},
		{"one character long", good + "A"},
		{"surrounding space", " " + good[:last]},
		{"standard base64 alphabet", replaceAt(good, 10, '+')},
		{"not base64", replaceAt(good, 10, '!')},
		{"padding", good[:last] + "="},
		{"newline inside", good[:20] + "\n" + good[21:]},
		{"flipped checksum character", replaceAt(good, last, otherBase64(good[last]))},
		{"flipped secret character", replaceAt(good, 5, otherBase64(good[5]))},
		{"Bearer scheme left in", "Bearer " + good[:len(good)-7]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hash, err := ParseToken(tt.text)
			if !errors.Is(err, ErrMalformedToken) || hash != nil {
				t.Errorf("ParseToken(%q) = %x, %v; want ErrMalformedToken", tt.text, hash, err)
			}
		})
	}
}

func TestParseTokenAcceptsAnyChecksummedSecret(t *testing.T) {
	t.Parallel()
	secret := bytes.Repeat([]byte{0xfb}, tokenRandomBytes) // encodes to '-' and '_' characters
	raw := binary.BigEndian.AppendUint32(secret, crc32.ChecksumIEEE(secret))
	text := TokenPrefix + base64.RawURLEncoding.EncodeToString(raw)
	if !strings.ContainsAny(text, "-_") {
		t.Fatalf("%q does not exercise the URL-safe alphabet", text)
	}
	if _, err := ParseToken(text); err != nil {
		t.Errorf("ParseToken(%q): %v", text, err)
	}
}

func TestNewSessionSecret(t *testing.T) {
	t.Parallel()
	a, b := NewSessionSecret(), NewSessionSecret()
	if a.Text == b.Text || len(a.Text) != 43 {
		t.Errorf("session secrets %q, %q: want two different 43-character values", a.Text, b.Text)
	}
	if !bytes.Equal(a.Hash, HashSecret(a.Text)) {
		t.Error("session secret hash is not HashSecret of its text")
	}
	if _, err := ParseToken(a.Text); err == nil {
		t.Error("a session secret parses as an API token")
	}
}

// FuzzParseToken checks that ParseToken never panics and accepts only
// strings that are a prefix and the base64url of a secret and its checksum,
// which re-encode to the same string.
func FuzzParseToken(f *testing.F) {
	good := NewToken().Text
	for _, s := range []string{
		good, "", TokenPrefix, good[:len(good)-1], good + "=", replaceAt(good, len(good)-1, otherBase64(good[len(good)-1])),
		"brg_" + strings.Repeat("A", 48), "brg_" + strings.Repeat("-", 48), strings.Repeat("\n", 52), "brg_\r\n" + good[6:],
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		hash, err := ParseToken(s)
		if err != nil {
			if !errors.Is(err, ErrMalformedToken) || hash != nil {
				t.Fatalf("ParseToken(%q) = %x, %v; want nil and ErrMalformedToken", s, hash, err)
			}
			return
		}
		body, ok := strings.CutPrefix(s, TokenPrefix)
		if !ok || len(s) != TokenLength {
			t.Fatalf("ParseToken accepted %q without the prefix or length", s)
		}
		raw, derr := base64.RawURLEncoding.DecodeString(body)
		if derr != nil || len(raw) != tokenRandomBytes+4 || TokenPrefix+base64.RawURLEncoding.EncodeToString(raw) != s {
			t.Fatalf("ParseToken accepted %q, which does not round-trip", s)
		}
		if binary.BigEndian.Uint32(raw[tokenRandomBytes:]) != crc32.ChecksumIEEE(raw[:tokenRandomBytes]) {
			t.Fatalf("ParseToken accepted %q with a wrong checksum", s)
		}
		if !bytes.Equal(hash, HashSecret(s)) {
			t.Fatalf("ParseToken(%q) returned a hash that is not HashSecret", s)
		}
	})
}
