package natsauth

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/nats-io/jwt/v2"
)

// AccountLimits bound what the Barrage account may hold in JetStream, so
// that no client of it, a hostile agent included, can fill the server
// (docs/security.md "Agents"). They are signed into the account JWT.
type AccountLimits struct {
	// MemoryBytes and DiskBytes bound the account's memory and file
	// storage.
	MemoryBytes int64
	DiskBytes   int64
	// Streams and Consumers bound how many of each the account holds.
	Streams   int64
	Consumers int64
}

// DefaultAccountLimits match deploy/nats/nats-operator.conf's server
// limits: 256 MiB of memory, 8 GiB of disk, 32 streams (Barrage needs 6)
// and 4096 consumers (one per agent, plus the API's).
func DefaultAccountLimits() AccountLimits {
	return AccountLimits{MemoryBytes: 256 << 20, DiskBytes: 8 << 30, Streams: 32, Consumers: 4096}
}

// Validate says which limit is not positive.
func (l AccountLimits) Validate() error {
	for _, f := range []struct {
		name string
		v    int64
	}{{"memory", l.MemoryBytes}, {"disk", l.DiskBytes}, {"streams", l.Streams}, {"consumers", l.Consumers}} {
		if f.v <= 0 {
			return fmt.Errorf("natsauth: account %s limit %d: must be positive", f.name, f.v)
		}
	}
	return nil
}

// jetStream is the limits in the JWT's form.
func (l AccountLimits) jetStream() jwt.JetStreamLimits {
	return jwt.JetStreamLimits{MemoryStorage: l.MemoryBytes, DiskStorage: l.DiskBytes, Streams: l.Streams, Consumer: l.Consumers}
}

// AgentOptions are what an agent credential binds besides the agent's
// identity: the pool it serves and the most shards it may run at once,
// which the dispatcher takes from the credential and never from the
// agent's own heartbeat, and its connection's limits.
type AgentOptions struct {
	// Pool is the agent pool (lower case letters, digits and '-'); empty
	// for none. A project restricted to pools gets only agents of them.
	Pool string
	// Capacity caps the shards the agent may run at once; 0 leaves only
	// the server's cap (BARRAGE_AGENT_MAX_CAPACITY).
	Capacity int
	// Subs bounds the agent connection's subscriptions; 0 means
	// DefaultAgentSubs.
	Subs int64
	// Payload bounds one message the agent publishes, in bytes; 0 leaves
	// the server's max_payload.
	Payload int64
}

// DefaultAgentSubs is an agent's subscription limit: it needs a handful
// (run control, its reply inbox, its pull requests).
const DefaultAgentSubs = 64

// Tags that carry an agent's binding in its user JWT.
const (
	poolTag     = "barrage-pool:"
	capacityTag = "barrage-capacity:"
)

// poolPattern is what a pool name may be.
var poolPattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// CheckPool tells why pool cannot name an agent pool, or nil.
func CheckPool(pool string) error {
	if !poolPattern.MatchString(pool) {
		return fmt.Errorf("pool %q: must be 1 to 63 lower-case letters, digits or '-', starting and ending with a letter or digit", pool)
	}
	return nil
}

// Validate says which option is out of range.
func (o AgentOptions) Validate() error {
	if o.Pool != "" {
		if err := CheckPool(o.Pool); err != nil {
			return err
		}
	}
	if o.Capacity < 0 || o.Capacity > 10000 {
		return fmt.Errorf("capacity %d: must be from 0 to 10000", o.Capacity)
	}
	if o.Subs < 0 || o.Payload < 0 {
		return errors.New("subscription and payload limits must not be negative")
	}
	return nil
}

// apply writes the options into an agent's user claims.
func (o AgentOptions) apply(u *jwt.UserClaims) {
	if o.Pool != "" {
		u.Tags.Add(poolTag + o.Pool)
	}
	if o.Capacity > 0 {
		u.Tags.Add(capacityTag + strconv.Itoa(o.Capacity))
	}
	u.Subs = DefaultAgentSubs
	if o.Subs > 0 {
		u.Subs = o.Subs
	}
	if o.Payload > 0 {
		u.Limits.Payload = o.Payload
	}
}

// AgentBinding is what a verified agent credential says about its agent.
type AgentBinding struct {
	ID       string // the agent's id (the JWT's name)
	Pool     string // its pool, "" for none
	Capacity int    // its capacity cap, 0 for none
}

// VerifyAgentJWT checks that token is an agent credential signed by the
// account accountPublic and returns what it binds. The heartbeat carries
// the token (it is not a secret: without its seed it proves nothing), so
// the dispatcher learns pool and capacity from the issuer, not the agent.
func VerifyAgentJWT(token, accountPublic string) (AgentBinding, error) {
	claims, err := jwt.DecodeUserClaims(token)
	if err != nil {
		return AgentBinding{}, fmt.Errorf("natsauth: agent credential: %w", err)
	}
	issuer := claims.Issuer
	if claims.IssuerAccount != "" {
		issuer = claims.IssuerAccount
	}
	if issuer != accountPublic || claims.Issuer != accountPublic {
		return AgentBinding{}, errors.New("natsauth: agent credential: not signed by this deployment's account")
	}
	b := AgentBinding{ID: claims.Name}
	for _, tag := range claims.Tags {
		switch {
		case strings.HasPrefix(tag, poolTag):
			b.Pool = strings.TrimPrefix(tag, poolTag)
		case strings.HasPrefix(tag, capacityTag):
			if b.Capacity, err = strconv.Atoi(strings.TrimPrefix(tag, capacityTag)); err != nil {
				return AgentBinding{}, fmt.Errorf("natsauth: agent credential: capacity tag %q", tag)
			}
		}
	}
	return b, nil
}
