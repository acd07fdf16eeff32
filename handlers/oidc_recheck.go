package handlers

import (
	"context"
	"errors"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"hindsight/models"
)

// DefaultRecheckInterval is how long the provider's word on an account is taken for, by default:
// after it, the re-check asks the provider again, and ends the account's sessions if it refuses.
const DefaultRecheckInterval = 15 * time.Minute

// recheckBatch bounds the identities one pass asks about.
const recheckBatch = 200

// Rechecked counts what a pass of Recheck did.
type Rechecked struct {
	Vouched, Refused, Unreadable int
}

// Recheck asks the provider again about every identity it last vouched for before the given
// instant, with the refresh token of its last sign-in. A provider that refuses the token
// (invalid_grant: the person was removed or disabled there, or their grant revoked) ends every
// session of the account and nothing else; one that is down or refuses Hindsight itself
// (a wrong client secret) changes nothing, and the pass stops to try again next time. A refresh
// token sealed under other client credentials cannot be used and is left to the next sign-in.
func (s *SignIn) Recheck(ctx context.Context, before time.Time) (Rechecked, error) {
	var done Rechecked
	o, _, err := s.Current(ctx)
	if err != nil || o == nil {
		return done, err
	}
	provider, err := o.discover(ctx)
	if err != nil {
		return done, err
	}
	due, err := s.store.IdentitiesToRecheck(ctx, o.cfg.Issuer, before, recheckBatch)
	if err != nil {
		return done, err
	}
	conf := o.oauth2Config(provider, "")
	for _, ident := range due {
		refresh, err := o.unseal(ident.RefreshToken)
		if err != nil {
			done.Unreadable++
			s.log.Warn("oidc re-check: refresh token unreadable", "identity", ident.ID, "err", err)
			if err := s.store.IdentityVouched(ctx, ident.ID, ""); err != nil {
				return done, err
			}
			continue
		}
		pctx, cancel := o.context(ctx)
		pctx = context.WithValue(pctx, oauth2.HTTPClient, o.client)
		token, err := conf.TokenSource(pctx, &oauth2.Token{RefreshToken: refresh}).Token()
		if err == nil {
			err = o.sameSubject(pctx, provider, token, ident.Subject)
		}
		cancel()
		var retrieve *oauth2.RetrieveError
		switch {
		case err == nil:
			rotated := ""
			if token.RefreshToken != "" && token.RefreshToken != refresh {
				rotated = o.seal(token.RefreshToken)
			}
			if err := s.store.IdentityVouched(ctx, ident.ID, rotated); err != nil {
				return done, err
			}
			done.Vouched++
		case errors.As(err, &retrieve) && retrieve.ErrorCode == "invalid_grant", errors.Is(err, errOtherSubject):
			if err := s.store.IdentityRefused(ctx, ident.ID, "the identity provider refused the account"); err != nil {
				return done, err
			}
			done.Refused++
			s.log.Info("oidc re-check: the provider refused an account; its sessions ended", "user", ident.UserID, "subject", ident.Subject)
		default:
			return done, err // down, or refusing Hindsight itself (a wrong secret): try again later
		}
	}
	return done, nil
}

var errOtherSubject = errors.New("the refreshed ID token names another subject")

// sameSubject checks the ID token a refresh may come with: it must verify and name the same
// person.
func (o *OIDC) sameSubject(ctx context.Context, provider *oidc.Provider, token *oauth2.Token, subject string) error {
	raw, _ := token.Extra("id_token").(string)
	if raw == "" {
		return nil
	}
	idToken, err := provider.Verifier(&oidc.Config{ClientID: o.cfg.ClientID}).Verify(ctx, raw)
	if err != nil {
		return err
	}
	if idToken.Subject != subject {
		return errOtherSubject
	}
	return nil
}

// RunRechecks re-checks, every minute until ctx ends, the identities the provider last vouched
// for more than interval ago. Each pass runs through models.Safely: a panic in it is logged, not
// the end of the server.
func (s *SignIn) RunRechecks(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		return
	}
	tick := min(time.Minute, interval)
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		err := models.Safely(func() error {
			_, err := s.Recheck(ctx, time.Now().Add(-interval))
			return err
		})
		if err != nil && ctx.Err() == nil {
			s.log.Warn("oidc re-check", "err", err)
		}
	}
}
