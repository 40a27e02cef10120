package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"strings"
)

// Token format: "brg_" + base64url(32 random bytes + CRC-32 of them), no
// padding: 4 + 48 = 52 characters. The checksum lets the API (and secret
// scanners) reject a mistyped or made-up token without a database lookup.
const (
	// TokenPrefix starts every API token.
	TokenPrefix = "brg_"
	// tokenRandomBytes is the secret's entropy.
	tokenRandomBytes = 32
	// TokenLength is the length of a token in characters.
	TokenLength = len(TokenPrefix) + (tokenRandomBytes+4)*4/3
	// hintLength is how much of a token is kept in clear to tell tokens apart.
	hintLength = len(TokenPrefix) + 6
)

// ErrMalformedToken is a string that is not a well-formed token.
var ErrMalformedToken = errors.New("not a well-formed Barrage token (brg_ followed by 48 characters with a valid checksum)")

// Secret is a newly minted credential: the text shown to its owner once,
// and what the database keeps.
type Secret struct {
	// Text is the token or session secret itself.
	Text string
	// Hash is SHA-256 of Text; the only form that is stored.
	Hash []byte
	// Hint is the first characters of Text, safe to show and log.
	Hint string
}

// NewToken mints a random API token.
func NewToken() Secret {
	b := make([]byte, tokenRandomBytes, tokenRandomBytes+4)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	text := TokenPrefix + base64.RawURLEncoding.EncodeToString(b)
	return Secret{Text: text, Hash: HashSecret(text), Hint: text[:hintLength]}
}

// ParseToken checks the format and checksum of text and returns its hash
// for lookup.
func ParseToken(text string) ([]byte, error) {
	body, ok := strings.CutPrefix(text, TokenPrefix)
	if !ok || len(text) != TokenLength {
		return nil, ErrMalformedToken
	}
	b, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil || len(b) != tokenRandomBytes+4 {
		return nil, ErrMalformedToken
	}
	if binary.BigEndian.Uint32(b[tokenRandomBytes:]) != crc32.ChecksumIEEE(b[:tokenRandomBytes]) {
		return nil, ErrMalformedToken
	}
	return HashSecret(text), nil
}

// HashSecret returns SHA-256 of a token or session secret.
func HashSecret(text string) []byte {
	h := sha256.Sum256([]byte(text))
	return h[:]
}

// NewSessionSecret returns a random session cookie value and its hash.
func NewSessionSecret() Secret {
	b := make([]byte, tokenRandomBytes)
	_, _ = rand.Read(b)
	text := base64.RawURLEncoding.EncodeToString(b)
	return Secret{Text: text, Hash: HashSecret(text), Hint: text[:6]}
}
