package runs

import (
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/barrage-dev/barrage/pkg/netguard"
	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
)

// targetField is the problem field of a refused target.
const targetField = "spec.url"

// socketField is the problem field of a refused Unix socket: a run may
// send over one only when its project's allow-list names it
// ("unix:/path"), so an agent never opens a socket on its machine that
// the project admin did not list.
const socketField = "spec.unix_socket"

// TargetPolicy is what every run's target is checked against besides its
// project's target allow-list (package netguard has the rules).
type TargetPolicy struct {
	// Deny lists the control plane's own addresses (the API's listen
	// address, Postgres, NATS) as netguard allow-list entries with ports;
	// no run may target them, whatever its project's list says.
	Deny []string
	// Resolver resolves target names at submit; nil means
	// net.DefaultResolver.
	Resolver *net.Resolver
}

// guard returns the Guard that judges a run target of a project whose
// allow-list is allow.
func (tp TargetPolicy) guard(allow []string) (netguard.Guard, error) {
	list, err := netguard.ParseAllowList(allow)
	if err != nil { // the projects service checked it when it was saved
		return netguard.Guard{}, fmt.Errorf("project target allow-list: %w", err)
	}
	deny, err := netguard.ParseAllowList(tp.Deny)
	if err != nil {
		return netguard.Guard{}, fmt.Errorf("control-plane deny list: %w", err)
	}
	return netguard.Guard{Allow: list, RequireListed: true, Deny: deny, Resolver: tp.Resolver}, nil
}

// checkTarget resolves the target of a validated spec and checks every
// address against the project's allow-list allow and the policy: an
// Invalid error on spec.url naming the target when it is refused or does
// not resolve. The agent checks again when it connects.
func (tp TargetPolicy) checkTarget(ctx context.Context, allow []string, sp spec.Spec) error {
	g, err := tp.guard(allow)
	if err != nil {
		return err
	}
	network, addr := sp.DialTarget()
	field := targetField
	if network == "unix" {
		field = socketField
	}
	if addr == "" {
		return apperr.Invalidf(targetField, "has no host to reach")
	}
	err = g.CheckAddr(ctx, network, addr)
	var refused *netguard.RefusedError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &refused):
		return apperr.Invalidf(field, "target %s refused: %s", addr, refused.Error())
	case ctx.Err() != nil:
		return fmt.Errorf("check target %s: %w", addr, err)
	default:
		return apperr.Invalidf(targetField, "target %s cannot be resolved: %v", addr, unwrapAll(err))
	}
}

// unwrapAll returns the innermost error of err's Unwrap chain, which for
// a failed lookup is the resolver's own message.
func unwrapAll(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}
