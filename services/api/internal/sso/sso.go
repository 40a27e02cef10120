// Package sso is optional sign-in through an OpenID Connect provider
// (authorization code flow with PKCE S256, coreos/go-oidc): the URL to
// send a browser to, and the verified identity (issuer and subject, with
// the email and name) of the user who comes back.
//
// It is not the place for sessions, users or the links between users and
// identities (package auth and the store keep them, by issuer and subject)
// nor for HTTP handling (httpapi keeps the state, nonce and PKCE verifier in
// a short-lived cookie and does the redirects).
package sso

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
)

// Options configure the provider; an empty Issuer disables OIDC sign-in.
type Options struct {
	// Issuer is the provider's issuer URL; its discovery document is read
	// at start.
	Issuer string
	// ClientID and ClientSecret identify barrage-api to the provider.
	ClientID     string
	ClientSecret string
	// RedirectURL is barrage-api's callback as registered with the
	// provider: <base URL>/api/v1/auth/oidc/callback.
	RedirectURL string
	// EmailDomain, when set, is the only email domain that may sign in
	// ("example.com").
	EmailDomain string
	// AutoProvision creates a user on the first sign-in of an identity no
	// user is linked to; off (the default), such a sign-in is refused and
	// an existing user links the identity from their own session.
	AutoProvision bool
}

// Enabled reports whether OIDC sign-in is configured.
func (o Options) Enabled() bool { return o.Issuer != "" }

// Validate reports the settings missing from an enabled configuration.
func (o Options) Validate() error {
	if !o.Enabled() {
		return nil
	}
	var missing []string
	for name, v := range map[string]string{"client id": o.ClientID, "client secret": o.ClientSecret, "redirect URL": o.RedirectURL} {
		if v == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("oidc: issuer set without %s", strings.Join(missing, ", "))
	}
	return nil
}

// Provider signs users in through one OIDC provider.
type Provider struct {
	oauth    oauth2.Config
	verifier *oidc.IDTokenVerifier
	domain   string
	// AutoProvision is Options.AutoProvision.
	AutoProvision bool
}

// New reads the provider's discovery document and returns a Provider.
func New(ctx context.Context, o Options) (*Provider, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	p, err := oidc.NewProvider(ctx, o.Issuer)
	if err != nil {
		return nil, fmt.Errorf("oidc: discover %s: %w", o.Issuer, err)
	}
	return &Provider{
		oauth: oauth2.Config{
			ClientID: o.ClientID, ClientSecret: o.ClientSecret, RedirectURL: o.RedirectURL,
			Endpoint: p.Endpoint(), Scopes: []string{oidc.ScopeOpenID, "email", "profile"},
		},
		verifier:      p.Verifier(&oidc.Config{ClientID: o.ClientID}),
		domain:        strings.ToLower(strings.TrimPrefix(o.EmailDomain, "@")),
		AutoProvision: o.AutoProvision,
	}, nil
}

// Flow is what to remember between sending the browser to the provider
// and its return: the state and nonce it was sent, and the PKCE code
// verifier whose S256 challenge it was sent.
type Flow struct {
	State, Nonce, Verifier string
}

// Start returns the provider URL to send the browser to, and the flow to
// remember until it comes back.
func (p *Provider) Start() (authURL string, f Flow) {
	f = Flow{State: random(), Nonce: random(), Verifier: oauth2.GenerateVerifier()}
	return p.oauth.AuthCodeURL(f.State, oidc.Nonce(f.Nonce), oauth2.S256ChallengeOption(f.Verifier)), f
}

// random returns 32 random bytes, URL-safe.
func random() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Identity is who the provider vouched for.
type Identity struct {
	// Issuer and Subject name the person at the provider; together they
	// are what a user is linked to.
	Issuer  string
	Subject string
	// Email is verified by the provider.
	Email string
	// Name is the display name, possibly "".
	Name string
}

// errRefused is the answer for any sign-in the provider's answer does not
// allow; the reason goes to the log through the wrapped error.
func errRefused(reason string) error {
	return &apperr.Error{Code: apperr.Unauthenticated, Detail: "single sign-on failed: " + reason}
}

// Finish exchanges the code the browser brought back, with the flow's
// PKCE verifier, verifies the ID token (signature, issuer, audience,
// expiry, nonce) and returns the identity: issuer, subject and verified
// email, which must be in the allowed domain.
func (p *Provider) Finish(ctx context.Context, code string, f Flow) (Identity, error) {
	tok, err := p.oauth.Exchange(ctx, code, oauth2.VerifierOption(f.Verifier))
	if err != nil {
		return Identity{}, errors.Join(errRefused("the code was not accepted"), fmt.Errorf("oidc exchange: %w", err))
	}
	raw, ok := tok.Extra("id_token").(string)
	if !ok || raw == "" {
		return Identity{}, errRefused("the provider sent no ID token")
	}
	idt, err := p.verifier.Verify(ctx, raw)
	if err != nil {
		return Identity{}, errors.Join(errRefused("the ID token is not valid"), fmt.Errorf("oidc verify: %w", err))
	}
	if idt.Nonce != f.Nonce {
		return Identity{}, errRefused("the ID token is not for this sign-in")
	}
	var claims struct {
		Email    string `json:"email"`
		Verified *bool  `json:"email_verified"`
		Name     string `json:"name"`
	}
	if err := idt.Claims(&claims); err != nil {
		return Identity{}, errors.Join(errRefused("the ID token is not readable"), fmt.Errorf("oidc claims: %w", err))
	}
	if idt.Subject == "" {
		return Identity{}, errRefused("the ID token names no subject")
	}
	if claims.Email == "" || claims.Verified == nil || !*claims.Verified {
		return Identity{}, errRefused("the provider did not vouch for an email address")
	}
	_, domain, _ := strings.Cut(claims.Email, "@")
	if p.domain != "" && !strings.EqualFold(domain, p.domain) {
		return Identity{}, errRefused("this email domain may not sign in")
	}
	return Identity{Issuer: idt.Issuer, Subject: idt.Subject, Email: claims.Email, Name: claims.Name}, nil
}
