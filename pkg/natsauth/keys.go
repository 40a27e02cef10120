// Package natsauth is Barrage's NATS authentication in operator (JWT)
// mode (docs/architecture.md §7): the keys of one operator, one system account and the
// Barrage account; the account's JWT a server trusts; the API's user, who
// may do anything in the account; and one user per agent, who may publish
// only its own heartbeats and snapshots and read only its own assignments
// and run control. Users are signed by the account key, so the server needs
// no change or reload when an agent credential is issued.
//
// It is not a NATS client or server (natsembed and the services are), and
// it does not store the keys anywhere but the file an operator points at.
package natsauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/nats-io/nkeys"
)

// Keys are the signing keys of a deployment: whoever holds them can issue
// any credential, so the file they live in is the API's secret.
type Keys struct {
	Operator nkeys.KeyPair
	System   nkeys.KeyPair
	Account  nkeys.KeyPair
}

// keysFile is the on-disk form of Keys.
type keysFile struct {
	Operator string `json:"operator_seed"`
	System   string `json:"system_account_seed"`
	Account  string `json:"account_seed"`
}

// Generate makes fresh keys.
func Generate() (Keys, error) {
	var k Keys
	var err error
	if k.Operator, err = nkeys.CreateOperator(); err != nil {
		return Keys{}, fmt.Errorf("natsauth: operator key: %w", err)
	}
	if k.System, err = nkeys.CreateAccount(); err != nil {
		return Keys{}, fmt.Errorf("natsauth: system account key: %w", err)
	}
	if k.Account, err = nkeys.CreateAccount(); err != nil {
		return Keys{}, fmt.Errorf("natsauth: account key: %w", err)
	}
	return k, nil
}

// Marshal returns the keys' file form (JSON with the three seeds).
func (k Keys) Marshal() ([]byte, error) {
	var f keysFile
	for _, p := range []struct {
		kp  nkeys.KeyPair
		dst *string
	}{{k.Operator, &f.Operator}, {k.System, &f.System}, {k.Account, &f.Account}} {
		seed, err := p.kp.Seed()
		if err != nil {
			return nil, fmt.Errorf("natsauth: seed: %w", err)
		}
		*p.dst = string(seed)
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("natsauth: encode keys: %w", err)
	}
	return append(b, '\n'), nil
}

// Unmarshal parses a keys file, checking that each seed is of its kind.
func Unmarshal(b []byte) (Keys, error) {
	var f keysFile
	if err := json.Unmarshal(b, &f); err != nil {
		return Keys{}, fmt.Errorf("natsauth: keys file: %w", err)
	}
	var k Keys
	for _, p := range []struct {
		name string
		seed string
		want nkeys.PrefixByte
		dst  *nkeys.KeyPair
	}{
		{"operator_seed", f.Operator, nkeys.PrefixByteOperator, &k.Operator},
		{"system_account_seed", f.System, nkeys.PrefixByteAccount, &k.System},
		{"account_seed", f.Account, nkeys.PrefixByteAccount, &k.Account},
	} {
		if p.seed == "" {
			return Keys{}, fmt.Errorf("natsauth: keys file: %s is missing", p.name)
		}
		kp, err := nkeys.FromSeed([]byte(p.seed))
		if err != nil {
			return Keys{}, fmt.Errorf("natsauth: keys file: %s: %w", p.name, err)
		}
		pub, err := kp.PublicKey()
		if err != nil || nkeys.Prefix(pub) != p.want {
			return Keys{}, fmt.Errorf("natsauth: keys file: %s is not a seed of the right kind", p.name)
		}
		*p.dst = kp
	}
	if k.publicKey(k.System) == k.publicKey(k.Account) {
		return Keys{}, errors.New("natsauth: keys file: the system and Barrage accounts must differ")
	}
	return k, nil
}

// Load reads a keys file.
func Load(path string) (Keys, error) {
	b, err := os.ReadFile(path) //nolint:gosec // the operator names the file
	if err != nil {
		return Keys{}, fmt.Errorf("natsauth: %w", err)
	}
	k, err := Unmarshal(b)
	if err != nil {
		return Keys{}, fmt.Errorf("%s: %w", path, err)
	}
	return k, nil
}

// Save writes the keys to a new file readable only by its owner; an
// existing file is never overwritten.
func (k Keys) Save(path string) error {
	b, err := k.Marshal()
	if err != nil {
		return err
	}
	return WriteSecretFile(path, b)
}

// WriteSecretFile writes data to a new file readable only by its owner
// (keys, credentials); an existing file is never overwritten.
func WriteSecretFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600) //nolint:gosec // the operator names the file
	if err != nil {
		return fmt.Errorf("natsauth: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		return fmt.Errorf("natsauth: write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("natsauth: write %s: %w", path, err)
	}
	return nil
}

// AccountPublic is the public key of the Barrage account, which signs
// every user: what a verifier of agent credentials checks them against
// (VerifyAgentJWT).
func (k Keys) AccountPublic() string { return k.publicKey(k.Account) }

// publicKey returns kp's public key; the key pairs of Keys always have one.
func (Keys) publicKey(kp nkeys.KeyPair) string {
	pub, err := kp.PublicKey()
	if err != nil {
		panic(fmt.Sprintf("natsauth: public key of a checked key pair: %v", err))
	}
	return pub
}
