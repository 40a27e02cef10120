// Package managed connects barrage-echo to the control plane's NATS (issue
// #12): the echo registers itself (name, project, addresses) in the echo
// bucket and applies the profile the API activated for it as its default
// parameters. It is not the echo's HTTP handling: it only calls Apply.
package managed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/barrage-dev/barrage/pkg/natsauth"
	"github.com/barrage-dev/barrage/pkg/wire"
)

// Options configure the managed echo.
type Options struct {
	// URL is the NATS server; Creds a .creds file from
	// `barrage-api echo-credentials create` (empty: no auth).
	URL, Creds string
	// Credentials, when set, are used instead of a Creds file.
	Credentials *natsauth.Credentials
	// Registration is what the echo says about itself (Name, Project,
	// Addrs, Version, StartedAt).
	Registration wire.EchoRegistration
	// Apply sets the echo's default parameters; "" restores -default-params.
	Apply func(content string) error
	// Logger gets the profile changes and connection trouble.
	Logger *slog.Logger
}

// Run registers the echo and follows its active profile until ctx ends.
// It keeps retrying while NATS or the buckets are missing.
func Run(ctx context.Context, o Options) error {
	opts := []nats.Option{
		nats.Name("barrage-echo " + o.Registration.Name), nats.MaxReconnects(-1), nats.RetryOnFailedConnect(true),
		nats.CustomInboxPrefix(natsauth.EchoInboxPrefix(o.Registration.Name)),
	}
	switch {
	case o.Credentials != nil:
		opts = append(opts, nats.UserJWTAndSeed(o.Credentials.JWT, string(o.Credentials.Seed)))
	case o.Creds != "":
		opts = append(opts, nats.UserCredentials(o.Creds))
	}
	nc, err := nats.Connect(o.URL, opts...)
	if err != nil {
		return fmt.Errorf("managed echo: connect %s: %w", o.URL, err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return fmt.Errorf("managed echo: jetstream: %w", err)
	}
	f := &follower{o: o, js: js, applied: -1}
	poll := time.NewTicker(wire.EchoPollEvery)
	defer poll.Stop()
	var lastBeat time.Time
	for {
		f.follow(ctx)
		if time.Since(lastBeat) >= wire.EchoBeatEvery {
			f.register(ctx)
			lastBeat = time.Now()
		}
		select {
		case <-ctx.Done():
			return nil
		case <-poll.C:
		}
	}
}

// follower holds the buckets (bound lazily) and the applied revision.
type follower struct {
	o                Options
	js               jetstream.JetStream
	echoes, profiles jetstream.KeyValue
	// applied is the revision of the applied profile; 0 = none, -1 = not read yet.
	applied int64
	profile string
}

func (f *follower) bind(ctx context.Context) bool {
	var err error
	if f.echoes == nil {
		if f.echoes, err = f.js.KeyValue(ctx, wire.EchoesBucket); err != nil {
			f.o.Logger.Debug("echo bucket not ready", slog.Any("err", err))
			return false
		}
	}
	if f.profiles == nil {
		if f.profiles, err = f.js.KeyValue(ctx, wire.EchoProfilesBucket); err != nil {
			f.o.Logger.Debug("echo profile bucket not ready", slog.Any("err", err))
			return false
		}
	}
	return true
}

// register writes the echo's registration.
func (f *follower) register(ctx context.Context) {
	if !f.bind(ctx) {
		return
	}
	reg := f.o.Registration
	reg.Profile = f.profile
	b, err := json.Marshal(reg)
	if err != nil {
		f.o.Logger.Error("encode registration", slog.Any("err", err))
		return
	}
	if _, err := f.echoes.Put(ctx, reg.Name, b); err != nil && ctx.Err() == nil {
		f.o.Logger.Warn("register echo", slog.Any("err", err))
	}
}

// follow reads the active profile and applies it when it changed.
func (f *follower) follow(ctx context.Context) {
	if !f.bind(ctx) {
		return
	}
	var p wire.EchoProfile
	var rev int64
	e, err := f.profiles.Get(ctx, f.o.Registration.Name)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
	case err != nil:
		if ctx.Err() == nil {
			f.o.Logger.Warn("read echo profile", slog.Any("err", err))
		}
		return
	default:
		rev = int64(e.Revision()) // revisions stay far below 2^63
		if err := json.Unmarshal(e.Value(), &p); err != nil {
			f.o.Logger.Error("decode echo profile", slog.Any("err", err))
			return
		}
	}
	if rev == f.applied {
		return
	}
	if err := f.o.Apply(p.Content); err != nil {
		f.o.Logger.Error("apply echo profile", slog.String("profile", p.Name), slog.Any("err", err))
		return
	}
	f.applied, f.profile = rev, p.Name
	f.o.Logger.Info("echo profile applied", slog.String("profile", p.Name), slog.String("content", p.Content))
}
