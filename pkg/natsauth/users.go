package natsauth

import (
	"errors"
	"fmt"
	"regexp"

	"github.com/google/uuid"
	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nkeys"

	"github.com/barrage-dev/barrage/pkg/wire"
)

// Credentials are one NATS user: its JWT and the seed that proves it.
type Credentials struct {
	JWT  string
	Seed []byte
}

// File is the credentials in the .creds format nats.UserCredentials reads.
func (c Credentials) File() ([]byte, error) {
	b, err := jwt.FormatUserConfig(c.JWT, c.Seed)
	if err != nil {
		return nil, fmt.Errorf("natsauth: format credentials: %w", err)
	}
	return b, nil
}

// namePattern is what an agent credential's name may be.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$`)

// CheckName tells why name cannot name an agent credential, or nil.
func CheckName(name string) error {
	if !namePattern.MatchString(name) {
		return fmt.Errorf("agent name %q: must be 1 to 63 letters, digits, '_', '.' or '-', starting with a letter or digit", name)
	}
	return nil
}

// APIUser issues the credentials of barrage-api: every permission in the
// account.
func (k Keys) APIUser() (Credentials, error) {
	return k.user("barrage-api", "", func(*jwt.UserClaims) {})
}

// AgentUser issues the credentials of one agent. The agent's id is a new
// UUID, carried as the JWT's subject-bound name; name is the human name
// the heartbeats show; opts bind its pool and capacity cap and limit its
// connection (AgentOptions).
func (k Keys) AgentUser(name string, opts AgentOptions) (Credentials, string, error) {
	if err := CheckName(name); err != nil {
		return Credentials{}, "", err
	}
	if err := opts.Validate(); err != nil {
		return Credentials{}, "", fmt.Errorf("natsauth: agent %q: %w", name, err)
	}
	id := uuid.NewString()
	c, err := k.user(id, name, func(u *jwt.UserClaims) {
		u.Permissions = AgentPermissions(id)
		opts.apply(u)
	})
	return c, id, err
}

// EchoUser issues the credentials of the managed echo server name: it may
// register itself and read its own active profile (EchoPermissions).
func (k Keys) EchoUser(name string) (Credentials, error) {
	if err := CheckName(name); err != nil {
		return Credentials{}, err
	}
	return k.user("echo:"+name, "", func(u *jwt.UserClaims) { u.Permissions = EchoPermissions(name) })
}

// EchoPermissions are what echo name may do: write its own registration,
// read its own active profile (a direct get, answered on its own inbox
// prefix, EchoInboxPrefix). Not another echo's key, not a profile write,
// no stream change, no run traffic.
func EchoPermissions(name string) jwt.Permissions {
	var p jwt.Permissions
	p.Pub.Allow.Add(
		"$KV."+wire.EchoesBucket+"."+name,
		"$JS.API.INFO",
		"$JS.API.STREAM.INFO.KV_"+wire.EchoesBucket,
		"$JS.API.STREAM.INFO.KV_"+wire.EchoProfilesBucket,
		"$JS.API.DIRECT.GET.KV_"+wire.EchoProfilesBucket+".$KV."+wire.EchoProfilesBucket+"."+name,
	)
	p.Sub.Allow.Add(EchoInboxPrefix(name) + ".>")
	return p
}

// EchoInboxPrefix is the reply-subject prefix echo name must use.
func EchoInboxPrefix(name string) string { return "_INBOX_echo_" + name }

// user signs a user JWT named name with the account key.
func (k Keys) user(name, tag string, set func(*jwt.UserClaims)) (Credentials, error) {
	kp, err := nkeys.CreateUser()
	if err != nil {
		return Credentials{}, fmt.Errorf("natsauth: user key: %w", err)
	}
	pub, err := kp.PublicKey()
	if err != nil {
		return Credentials{}, fmt.Errorf("natsauth: user key: %w", err)
	}
	seed, err := kp.Seed()
	if err != nil {
		return Credentials{}, fmt.Errorf("natsauth: user key: %w", err)
	}
	u := jwt.NewUserClaims(pub)
	u.Name = name
	if tag != "" {
		u.Tags.Add("agent-name:" + tag)
	}
	set(u)
	token, err := u.Encode(k.Account)
	if err != nil {
		return Credentials{}, fmt.Errorf("natsauth: user jwt: %w", err)
	}
	return Credentials{JWT: token, Seed: seed}, nil
}

// AgentPermissions are what agent id may do (docs/architecture.md §7): publish its own
// heartbeat and its own snapshots, bind and pull its own assignment
// consumer, read run states, and receive run control and the replies on
// its own inbox prefix. Nothing else: not another agent's assignments
// (their consumer, a direct read of the stream, or another inbox), not a
// snapshot under another agent's id, not a stream change.
func AgentPermissions(id string) jwt.Permissions {
	consumer := wire.AgentConsumer(id)
	var p jwt.Permissions
	p.Pub.Allow.Add(
		wire.SnapSubjectsOf(id),
		"$KV."+wire.AgentsBucket+"."+id,
		"$JS.API.INFO",
		"$JS.API.STREAM.INFO.KV_"+wire.AgentsBucket,
		"$JS.API.STREAM.INFO.KV_"+wire.RunsBucket,
		"$JS.API.DIRECT.GET.KV_"+wire.AgentsBucket+".$KV."+wire.AgentsBucket+"."+id,
		"$JS.API.DIRECT.GET.KV_"+wire.RunsBucket+".>",
		"$JS.API.STREAM.INFO."+wire.AssignStream,
		"$JS.API.CONSUMER.CREATE."+wire.AssignStream+"."+consumer+"."+wire.AssignSubject(id),
		"$JS.API.CONSUMER.INFO."+wire.AssignStream+"."+consumer,
		"$JS.API.CONSUMER.DELETE."+wire.AssignStream+"."+consumer,
		"$JS.API.CONSUMER.MSG.NEXT."+wire.AssignStream+"."+consumer,
		"$JS.ACK."+wire.AssignStream+"."+consumer+".>",
	)
	p.Sub.Allow.Add(wire.ControlSubjects, InboxPrefix(id)+".>")
	return p
}

// InboxPrefix is the reply-subject prefix an agent must use
// (nats.CustomInboxPrefix): replies to it, pulled assignments included,
// are visible to it alone.
func InboxPrefix(id string) string { return "_INBOX_" + id }

// ParseCredentials reads a .creds file and returns it with the agent id it
// is for (the JWT's name). A file that is not an agent's is refused.
func ParseCredentials(file []byte) (Credentials, string, error) {
	token, err := jwt.ParseDecoratedJWT(file)
	if err != nil {
		return Credentials{}, "", fmt.Errorf("natsauth: credentials: %w", err)
	}
	kp, err := jwt.ParseDecoratedNKey(file)
	if err != nil {
		return Credentials{}, "", fmt.Errorf("natsauth: credentials: %w", err)
	}
	seed, err := kp.Seed()
	if err != nil {
		return Credentials{}, "", fmt.Errorf("natsauth: credentials: %w", err)
	}
	claims, err := jwt.DecodeUserClaims(token)
	if err != nil {
		return Credentials{}, "", fmt.Errorf("natsauth: credentials: %w", err)
	}
	pub, err := kp.PublicKey()
	if err != nil || pub != claims.Subject {
		return Credentials{}, "", errors.New("natsauth: credentials: the seed is not the JWT's user")
	}
	if _, err := uuid.Parse(claims.Name); err != nil {
		return Credentials{}, "", fmt.Errorf("natsauth: credentials: not an agent's (name %q is not an agent id)", claims.Name)
	}
	return Credentials{JWT: token, Seed: seed}, claims.Name, nil
}
