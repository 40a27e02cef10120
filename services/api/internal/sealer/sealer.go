// Package sealer seals secrets the API must keep but must not store in
// clear: the real spec of a queued run (its Authorization header, URL
// userinfo and secret query parameters) that the dispatcher hands to the
// agents. It encrypts with AES-256-GCM under a key the operator gives in
// BARRAGE_SECRET_KEY; the key is never stored beside the data.
//
// A sealed blob (format 1) is the 4-byte header "brs\x01" (magic and
// version), the key id (the first 8 bytes of the SHA-256 of the key), a
// 12-byte random nonce and the GCM ciphertext with its tag; header and key
// id are authenticated. Blobs of format 0, written before key rotation
// existed (migration 00006), are the key id, the nonce and the ciphertext
// with only the key id authenticated; Open still opens them.
//
// A Sealer seals under its current key and opens blobs of the current key
// and of any previous key it was given, so a key can be rotated: configure
// the new key as current and the old one as previous, re-seal what is
// stored (Reseal), then drop the old key. Opening a blob of a key the
// sealer does not hold is ErrWrongKey naming the blob's key id, not
// garbage.
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

// Layout of a sealed blob.
const (
	// idSize is the length of the key id.
	idSize = 8
	// nonceSize is the length of the GCM nonce.
	nonceSize = 12
	// headerSize is the length of the format 1 header before the key id.
	headerSize = 4
)

// header starts a blob of format 1: magic "brs" and the version.
const header = "brs\x01"

// Errors of Open; compare with errors.Is.
var (
	// ErrWrongKey is a blob sealed under a key the sealer does not hold.
	ErrWrongKey = errors.New("sealed under another key")
	// ErrCorrupt is a blob that is too short or fails authentication.
	ErrCorrupt = errors.New("sealed data is corrupt or was altered")
)

// WrongKeyError is the error of Open for a blob sealed under a key the
// sealer does not hold; errors.Is(err, ErrWrongKey) holds for it.
type WrongKeyError struct {
	// KeyID is the hex id of the key the blob was sealed under.
	KeyID string
	// Current and Previous are the hex ids of the sealer's keys.
	Current  string
	Previous []string
}

// Error names the blob's key id and the sealer's.
func (e *WrongKeyError) Error() string {
	prev := "none"
	if len(e.Previous) > 0 {
		prev = strings.Join(e.Previous, ", ")
	}
	return fmt.Sprintf("%v: the data is sealed under key id %s, which is neither this server's key (id %s) nor a previous key (ids %s)",
		ErrWrongKey, e.KeyID, e.Current, prev)
}

// Is makes errors.Is(err, ErrWrongKey) hold.
func (e *WrongKeyError) Is(target error) bool { return target == ErrWrongKey }

// Sealer seals under one key and opens under it and under older keys. It is
// safe for concurrent use.
type Sealer struct {
	current  key
	previous []key
}

// key is one AES-256-GCM key and its id.
type key struct {
	aead cipher.AEAD
	id   [idSize]byte
}

// New returns a sealer that seals with current and opens blobs of current
// and of the previous keys. Every key must be KeySize bytes.
func New(current []byte, previous ...[]byte) (*Sealer, error) {
	cur, err := newKey(current)
	if err != nil {
		return nil, err
	}
	s := &Sealer{current: cur}
	for i, p := range previous {
		k, err := newKey(p)
		if err != nil {
			return nil, fmt.Errorf("previous key %d: %w", i+1, err)
		}
		if k.id != cur.id && s.find(k.id[:]) == nil {
			s.previous = append(s.previous, k)
		}
	}
	return s, nil
}

// newKey makes the cipher of a key.
func newKey(raw []byte) (key, error) {
	if len(raw) != KeySize {
		return key{}, fmt.Errorf("secret key: %d bytes, want %d", len(raw), KeySize)
	}
	block, err := aes.NewCipher(raw)
	if err != nil {
		return key{}, fmt.Errorf("secret key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return key{}, fmt.Errorf("secret key: %w", err)
	}
	k := key{aead: aead}
	sum := sha256.Sum256(raw)
	copy(k.id[:], sum[:idSize])
	return k, nil
}

// Parse returns a sealer with keys given as standard base64 of KeySize
// bytes, the form of BARRAGE_SECRET_KEY and of NewKey: current seals, and
// previous keys only open.
func Parse(current string, previous ...string) (*Sealer, error) {
	cur, err := ParseKey(current)
	if err != nil {
		return nil, err
	}
	prev := make([][]byte, 0, len(previous))
	for i, text := range previous {
		k, err := ParseKey(text)
		if err != nil {
			return nil, fmt.Errorf("previous key %d: %w", i+1, err)
		}
		prev = append(prev, k)
	}
	return New(cur, prev...)
}

// ParseKey decodes a key given as standard base64 of KeySize bytes.
func ParseKey(text string) ([]byte, error) {
	k, err := base64.StdEncoding.DecodeString(strings.TrimSpace(text))
	if err != nil {
		return nil, errors.New("secret key: not standard base64")
	}
	if len(k) != KeySize {
		return nil, fmt.Errorf("secret key: decodes to %d bytes, want %d", len(k), KeySize)
	}
	return k, nil
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

// KeyID returns the id of the current key in hex, for logs: it names the
// key without revealing it.
func (s *Sealer) KeyID() string { return hex.EncodeToString(s.current.id[:]) }

// PreviousKeyIDs returns the ids of the previous keys in hex.
func (s *Sealer) PreviousKeyIDs() []string {
	ids := make([]string, len(s.previous))
	for i, k := range s.previous {
		ids[i] = hex.EncodeToString(k.id[:])
	}
	return ids
}

// Seal encrypts plain under the current key, in format 1.
func (s *Sealer) Seal(plain []byte) []byte {
	k := s.current
	out := make([]byte, headerSize+idSize+nonceSize, headerSize+idSize+nonceSize+len(plain)+k.aead.Overhead())
	copy(out, header)
	copy(out[headerSize:], k.id[:])
	aad := out[:headerSize+idSize]
	nonce := out[headerSize+idSize:]
	_, _ = rand.Read(nonce) // never fails (crypto/rand)
	return k.aead.Seal(out, nonce, plain, aad)
}

// Open decrypts a blob made by Seal (or by the format 0 sealer) under the
// current or a previous key. It returns ErrWrongKey, naming the blob's key
// id, for a blob of a key the sealer does not hold, and ErrCorrupt for one
// that is truncated or was altered.
func (s *Sealer) Open(blob []byte) ([]byte, error) {
	var first error
	if p, ok := parseFormat1(blob); ok {
		plain, err := s.open(p)
		if err == nil {
			return plain, nil
		}
		first = err
	}
	// A format 0 blob whose key id happens to start with the header is
	// tried as format 0 too.
	if p, ok := parseFormat0(blob); ok {
		plain, err := s.open(p)
		if err == nil || first == nil {
			return plain, err
		}
	}
	if first == nil {
		return nil, ErrCorrupt
	}
	return nil, first
}

// IsCurrent reports whether blob is sealed in format 1 under the current
// key, which Reseal leaves alone. It does not authenticate the blob.
func (s *Sealer) IsCurrent(blob []byte) bool {
	p, ok := parseFormat1(blob)
	return ok && bytes.Equal(p.id, s.current.id[:])
}

// Reseal returns blob sealed under the current key in format 1, and whether
// that changed it: a blob already current is returned as it is. Errors are
// those of Open.
func (s *Sealer) Reseal(blob []byte) ([]byte, bool, error) {
	if s.IsCurrent(blob) {
		if _, err := s.Open(blob); err != nil {
			return nil, false, err
		}
		return blob, false, nil
	}
	plain, err := s.Open(blob)
	if err != nil {
		return nil, false, err
	}
	return s.Seal(plain), true, nil
}

// parsed is a blob split into its parts.
type parsed struct {
	id, nonce, sealed, aad []byte
}

// parseFormat1 splits a blob of format 1.
func parseFormat1(blob []byte) (parsed, bool) {
	const fixed = headerSize + idSize + nonceSize
	if len(blob) < fixed+16 || string(blob[:headerSize]) != header {
		return parsed{}, false
	}
	return parsed{
		id: blob[headerSize : headerSize+idSize], nonce: blob[headerSize+idSize : fixed],
		sealed: blob[fixed:], aad: blob[:headerSize+idSize],
	}, true
}

// parseFormat0 splits a blob of format 0 (migration 00006).
func parseFormat0(blob []byte) (parsed, bool) {
	const fixed = idSize + nonceSize
	if len(blob) < fixed+16 {
		return parsed{}, false
	}
	return parsed{id: blob[:idSize], nonce: blob[idSize:fixed], sealed: blob[fixed:], aad: blob[:idSize]}, true
}

// open opens p with the key of its id.
func (s *Sealer) open(p parsed) ([]byte, error) {
	k := s.find(p.id)
	if k == nil {
		return nil, &WrongKeyError{KeyID: hex.EncodeToString(p.id), Current: s.KeyID(), Previous: s.PreviousKeyIDs()}
	}
	plain, err := k.aead.Open(nil, p.nonce, p.sealed, p.aad)
	if err != nil {
		return nil, ErrCorrupt
	}
	return plain, nil
}

// find returns the key of id, or nil.
func (s *Sealer) find(id []byte) *key {
	if bytes.Equal(id, s.current.id[:]) {
		return &s.current
	}
	for i := range s.previous {
		if bytes.Equal(id, s.previous[i].id[:]) {
			return &s.previous[i]
		}
	}
	return nil
}

// randomKey returns KeySize random bytes.
func randomKey() []byte {
	k := make([]byte, KeySize)
	_, _ = rand.Read(k) // never fails (crypto/rand)
	return k
}
