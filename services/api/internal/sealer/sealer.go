// Package sealer seals secrets the API must keep but must not store in
// clear: the real spec of a queued run (its Authorization header, URL
// userinfo and secret query parameters) that the dispatcher hands to the
// agents. It encrypts with AES-256-GCM under a key the operator gives in
// BARRAGE_SECRET_KEY; the key is never stored beside the data.
//
// A sealed blob is the key id (the first 8 bytes of the SHA-256 of the key),
// a 12-byte random nonce and the GCM ciphertext with its tag; the key id is
// also authenticated. Opening a blob sealed under another key is ErrWrongKey,
// not garbage.
//
// It is not the place for redaction (spec.Spec.Redacted) nor for hashing
// API tokens (package auth).
package sealer

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// KeySize is the length of a key in bytes (AES-256).
const KeySize = 32

// idSize is the length of the key id that starts a sealed blob.
const idSize = 8

// Errors of Open; compare with errors.Is.
var (
	// ErrWrongKey is a blob sealed under another key than the sealer's.
	ErrWrongKey = errors.New("sealed under another key")
	// ErrCorrupt is a blob that is too short or fails authentication.
	ErrCorrupt = errors.New("sealed data is corrupt or was altered")
)

// Sealer seals and opens secrets under one key. It is safe for concurrent use.
type Sealer struct {
	aead cipher.AEAD
	id   [idSize]byte
}

// New returns a sealer with key, which must be KeySize bytes.
func New(key []byte) (*Sealer, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("secret key: %d bytes, want %d", len(key), KeySize)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("secret key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("secret key: %w", err)
	}
	s := &Sealer{aead: aead}
	sum := sha256.Sum256(key)
	copy(s.id[:], sum[:idSize])
	return s, nil
}

// Parse returns a sealer with a key given as standard base64 of KeySize
// bytes, the form of BARRAGE_SECRET_KEY and of NewKey.
func Parse(text string) (*Sealer, error) {
	key, err := ParseKey(text)
	if err != nil {
		return nil, err
	}
	return New(key)
}

// ParseKey decodes a key given as standard base64 of KeySize bytes.
func ParseKey(text string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(text))
	if err != nil {
		return nil, errors.New("secret key: not standard base64")
	}
	if len(key) != KeySize {
		return nil, fmt.Errorf("secret key: decodes to %d bytes, want %d", len(key), KeySize)
	}
	return key, nil
}

// NewKey returns a random key as base64, for BARRAGE_SECRET_KEY.
func NewKey() string {
	return base64.StdEncoding.EncodeToString(randomKey())
}

// Ephemeral returns a sealer with a random key that lives only as long as
// the process: what the API uses when no key is configured.
func Ephemeral() *Sealer {
	s, err := New(randomKey())
	if err != nil { // a KeySize key always makes a cipher
		panic(fmt.Sprintf("sealer: %v", err))
	}
	return s
}

// KeyID returns the id of the sealer's key in hex, for logs: it names the
// key without revealing it.
func (s *Sealer) KeyID() string { return hex.EncodeToString(s.id[:]) }

// Seal encrypts plain; the result holds the key id, the nonce and the
// authenticated ciphertext.
func (s *Sealer) Seal(plain []byte) []byte {
	ns := s.aead.NonceSize()
	out := make([]byte, idSize+ns, idSize+ns+len(plain)+s.aead.Overhead())
	copy(out, s.id[:])
	_, _ = rand.Read(out[idSize:]) // never fails (crypto/rand)
	return s.aead.Seal(out, out[idSize:idSize+ns], plain, s.id[:])
}

// Open decrypts a blob made by Seal under the same key. It returns
// ErrWrongKey for a blob of another key and ErrCorrupt for one that is
// truncated or was altered.
func (s *Sealer) Open(blob []byte) ([]byte, error) {
	ns := s.aead.NonceSize()
	if len(blob) < idSize+ns+s.aead.Overhead() {
		return nil, ErrCorrupt
	}
	if id := blob[:idSize]; !bytes.Equal(id, s.id[:]) {
		return nil, fmt.Errorf("%w: key id %x, this server's is %s", ErrWrongKey, id, s.KeyID())
	}
	plain, err := s.aead.Open(nil, blob[idSize:idSize+ns], blob[idSize+ns:], s.id[:])
	if err != nil {
		return nil, ErrCorrupt
	}
	return plain, nil
}

// randomKey returns KeySize random bytes.
func randomKey() []byte {
	key := make([]byte, KeySize)
	_, _ = rand.Read(key) // never fails (crypto/rand)
	return key
}
