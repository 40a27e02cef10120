package auth

import (
	"errors"
	"regexp"
	"strings"
	"testing"
)

// phc is the format HashPassword writes: RFC 9106 parameters, a 16-byte salt
// and a 32-byte key in unpadded standard base64.
var phc = regexp.MustCompile(`^\$argon2id\$v=19\$m=65536,t=3,p=2\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$`)

func TestHashAndCheckPassword(t *testing.T) {
	t.Parallel()
	const password = "correct horse battery staple"
	hash := HashPassword(password)
	if !phc.MatchString(hash) {
		t.Fatalf("HashPassword = %q, want the argon2id PHC format", hash)
	}
	if err := CheckPassword(hash, password); err != nil {
		t.Errorf("CheckPassword(right password) = %v, want nil", err)
	}
	for _, wrong := range []string{"", "correct horse battery stapl", "Correct horse battery staple", password + " "} {
		if err := CheckPassword(hash, wrong); !errors.Is(err, ErrBadPassword) {
			t.Errorf("CheckPassword(%q) = %v, want ErrBadPassword", wrong, err)
		}
	}
	if again := HashPassword(password); again == hash {
		t.Error("two hashes of one password are equal; the salt is not random")
	}
}

func TestCheckPasswordCorruptHash(t *testing.T) {
	t.Parallel()
	good := HashPassword("a password")
	parts := strings.Split(good, "$")
	with := func(i int, v string) string {
		p := append([]string(nil), parts...)
		p[i] = v
		return strings.Join(p, "$")
	}
	tests := []struct {
		name, hash string
	}{
		{"empty", ""},
		{"bcrypt", "$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy"},
		{"argon2i", with(1, "argon2i")},
		{"missing part", strings.Join(parts[:5], "$")},
		{"extra part", good + "$x"},
		{"other version", with(2, "v=16")},
		{"no version", with(2, "version")},
		{"unreadable parameters", with(3, "m=lots,t=3,p=2")},
		{"salt not base64", with(4, "not base64!")},
		{"key not base64", with(5, "not base64!")},
		{"empty key", with(5, "")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := CheckPassword(tt.hash, "a password")
			if err == nil || errors.Is(err, ErrBadPassword) {
				t.Errorf("CheckPassword(%q) = %v, want an error other than ErrBadPassword", tt.hash, err)
			}
		})
	}
}

// TestDummyHashCostsARealCheck guards sign-in's timing defence: an unknown
// email is checked against dummyHash, which must be a readable hash so the
// check does the full argon2 work instead of failing fast.
func TestDummyHashCostsARealCheck(t *testing.T) {
	t.Parallel()
	if err := CheckPassword(dummyHash, "any password"); !errors.Is(err, ErrBadPassword) {
		t.Errorf("CheckPassword(dummyHash) = %v, want ErrBadPassword after a full check", err)
	}
	if !strings.HasPrefix(dummyHash, "$argon2id$v=19$m=65536,t=3,p=2$") {
		t.Errorf("dummyHash %q does not use HashPassword's parameters, so it costs another time", dummyHash)
	}
}

func TestNewPassword(t *testing.T) {
	t.Parallel()
	a, b := NewPassword(), NewPassword()
	if a == b || !regexp.MustCompile(`^[A-Za-z0-9_-]{20}$`).MatchString(a) {
		t.Errorf("NewPassword = %q, %q; want two different 20-character URL-safe passwords", a, b)
	}
}
