package natsauth

import (
	"fmt"
	"strings"

	"github.com/nats-io/jwt/v2"
)

// AccountName is the name of the account every Barrage client uses.
const AccountName = "BARRAGE"

// Trust is what a server needs to accept Barrage's users: the operator's
// JWT and the JWTs of the system and Barrage accounts.
type Trust struct {
	Operator      *jwt.OperatorClaims
	OperatorJWT   string
	SystemPublic  string
	SystemJWT     string
	AccountPublic string
	AccountJWT    string
}

// Trust signs the operator and account JWTs with DefaultAccountLimits.
func (k Keys) Trust() (Trust, error) { return k.TrustLimited(DefaultAccountLimits()) }

// TrustLimited signs the operator and account JWTs; the Barrage
// account's JetStream use is bounded by limits.
func (k Keys) TrustLimited(limits AccountLimits) (Trust, error) {
	if err := limits.Validate(); err != nil {
		return Trust{}, err
	}
	var t Trust
	op := jwt.NewOperatorClaims(k.publicKey(k.Operator))
	op.Name = "barrage"
	t.SystemPublic = k.publicKey(k.System)
	op.SystemAccount = t.SystemPublic
	var err error
	if t.OperatorJWT, err = op.Encode(k.Operator); err != nil {
		return Trust{}, fmt.Errorf("natsauth: operator jwt: %w", err)
	}
	t.Operator = op

	sys := jwt.NewAccountClaims(t.SystemPublic)
	sys.Name = "SYS"
	if t.SystemJWT, err = sys.Encode(k.Operator); err != nil {
		return Trust{}, fmt.Errorf("natsauth: system account jwt: %w", err)
	}

	t.AccountPublic = k.publicKey(k.Account)
	acc := jwt.NewAccountClaims(t.AccountPublic)
	acc.Name = AccountName
	// JetStream is on for the account, within its limits: every client of
	// the account, the agents included, shares them (docs/security.md "Agents").
	acc.Limits.JetStreamLimits = limits.jetStream()
	if t.AccountJWT, err = acc.Encode(k.Operator); err != nil {
		return Trust{}, fmt.Errorf("natsauth: account jwt: %w", err)
	}
	return t, nil
}

// ServerConfig is the part of a nats-server configuration file that turns
// on operator mode with these accounts (a memory resolver preloaded with
// both JWTs); include it from the main file.
func (t Trust) ServerConfig() string {
	var b strings.Builder
	b.WriteString("# Barrage NATS trust, written by `barrage-api nats-auth server-config`.\n")
	b.WriteString("# Operator mode: clients present user JWTs signed by the BARRAGE account.\n")
	fmt.Fprintf(&b, "operator: %q\n", t.OperatorJWT)
	fmt.Fprintf(&b, "system_account: %s\n", t.SystemPublic)
	b.WriteString("resolver: MEMORY\n")
	b.WriteString("resolver_preload: {\n")
	fmt.Fprintf(&b, "  %s: %q\n", t.SystemPublic, t.SystemJWT)
	fmt.Fprintf(&b, "  %s: %q\n", t.AccountPublic, t.AccountJWT)
	b.WriteString("}\n")
	return b.String()
}
