package runs

import (
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/barrage-dev/barrage/pkg/netguard"
	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/policy"
	"github.com/barrage-dev/barrage/services/api/internal/projects"
)

// targetField is the problem field of a refused target.
const targetField = "spec.url"

// socketField is the problem field of a refused Unix socket: a run may
// send over one only when its project's allow-list names it
// ("unix:/path"), so an agent never opens a socket on its machine that
// the project admin did not list.
const socketField = "spec.unix_socket"

// TargetPolicy is what every run's target is checked against besides its
// project's target policy (policy.Targets; package netguard has the
// rules).
type TargetPolicy struct {
	// Deny returns the control plane's own addresses (the API's listen
	// address, Postgres, NATS, and the operator's extra entries) as
	// netguard allow-list entries; no run may target them, whatever any
	// policy says. It is read at every submit, so a refreshed list applies
	// at once. Nil denies nothing.
	Deny func() []string
	// Resolver resolves target names at submit; nil means
	// net.DefaultResolver.
	Resolver *net.Resolver
}

// deny returns the control-plane deny list now.
func (tp TargetPolicy) deny() []string {
	if tp.Deny == nil {
		return nil
	}
	return tp.Deny()
}

// checkedTargets returns the target policy of proj once sp's target
// passes it (checkTarget).
func (s *Service) checkedTargets(ctx context.Context, proj projects.Project, sp spec.Spec) (policy.Targets, error) {
	t, err := s.projects.Targets(ctx, proj)
	if err != nil {
		return policy.Targets{}, err
	}
	if err := s.targets.checkTarget(ctx, t, sp); err != nil {
		return policy.Targets{}, err
	}
	return t, nil
}

// checkTarget resolves the target of a validated spec and checks every
// address against the project's target policy t and the deny list: an
// Invalid error on spec.url naming the target when it is refused or does
// not resolve, which never shows an address a name resolved to. The agent
// checks again when it connects.
func (tp TargetPolicy) checkTarget(ctx context.Context, t policy.Targets, sp spec.Spec) error {
	g, err := t.Guard(tp.deny())
	if err != nil {
		return err
	}
	g.Resolver = tp.Resolver
	if sp.IsScenario() {
		return tp.checkSteps(ctx, g, sp)
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
		return apperr.Invalidf(targetField, "target %s cannot be resolved: %s", addr, lookupFailure(err))
	}
}

// lookupFailure says why a lookup failed without the resolver's address,
// which net.DNSError's own text names ("lookup x on 10.0.0.2:53: ...").
func lookupFailure(err error) string {
	var dns *net.DNSError
	switch {
	case errors.As(err, &dns) && dns.IsNotFound:
		return "no such host"
	case errors.As(err, &dns) && dns.IsTimeout:
		return "the lookup timed out"
	case errors.As(err, &dns):
		return "the lookup failed"
	}
	for next := errors.Unwrap(err); next != nil; next = errors.Unwrap(err) {
		err = next
	}
	return err.Error()
}
