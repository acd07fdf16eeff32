package handlers

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strings"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/labstack/echo/v4"
	"golang.org/x/oauth2"

	"hindsight/models"
	"hindsight/templates"
)

// OIDCCallback finishes a sign-in at the identity provider. The state must be the one this
// session started with, and is spent whatever happens next; the code is exchanged with the PKCE
// verifier; go-oidc checks the ID token's signature, issuer, audience and expiry, and the nonce
// must be this session's. Only then is the account found by (issuer, subject) or made.
func (h *Handlers) OIDCCallback(c echo.Context) error {
	ctx := c.Request().Context()
	o, _, err := h.SignIn.Current(ctx)
	if err != nil {
		return err
	}
	if o == nil {
		return echo.NewHTTPError(http.StatusNotFound, "Sign-in with an identity provider is not set up here.")
	}
	wantState := h.Sessions.PopString(ctx, sessionOIDCState)
	nonce := h.Sessions.PopString(ctx, sessionOIDCNonce)
	verifier := h.Sessions.PopString(ctx, sessionOIDCVerifier)
	next := safeNext(h.Sessions.PopString(ctx, sessionOIDCNext))
	refuse := func(status int, message string) error {
		return h.renderLogin(c, status, templates.LoginView{Next: next, Error: message})
	}
	state := c.QueryParam("state")
	if wantState == "" || subtle.ConstantTimeCompare([]byte(state), []byte(wantState)) != 1 {
		return refuse(http.StatusBadRequest, "This sign-in has expired or was already used. Start again with the button below.")
	}
	if e := c.QueryParam("error"); e != "" {
		message := "The identity provider did not sign you in (" + e + ")."
		if d := c.QueryParam("error_description"); d != "" {
			message = "The identity provider did not sign you in: " + d
		}
		return refuse(http.StatusUnauthorized, message)
	}
	provider, err := o.discover(ctx)
	if err != nil {
		h.Log.Warn("oidc discovery failed", "issuer", o.cfg.Issuer, "err", err)
		return refuse(http.StatusServiceUnavailable, OIDCDown)
	}
	conf, err := h.oauth2Config(ctx, o, provider)
	if err != nil {
		return err
	}
	pctx, cancel := o.context(ctx)
	defer cancel()
	pctx = context.WithValue(pctx, oauth2.HTTPClient, o.client)
	token, err := conf.Exchange(pctx, c.QueryParam("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		h.Log.Warn("oidc code exchange failed", "err", err)
		var retrieve *oauth2.RetrieveError
		var netErr net.Error
		if !errors.As(err, &retrieve) && (errors.As(err, &netErr) || errors.Is(err, context.DeadlineExceeded)) {
			return refuse(http.StatusServiceUnavailable, OIDCDown)
		}
		return refuse(http.StatusUnauthorized, "The identity provider did not accept this sign-in. Start again with the button below.")
	}
	rawIDToken, _ := token.Extra("id_token").(string)
	if rawIDToken == "" {
		return refuse(http.StatusUnauthorized, "The identity provider sent no ID token; nobody was signed in.")
	}
	idToken, err := provider.Verifier(&oidc.Config{ClientID: o.cfg.ClientID}).Verify(pctx, rawIDToken)
	if err != nil {
		h.Log.Warn("oidc id token refused", "err", err)
		return refuse(http.StatusUnauthorized, "The identity provider's ID token failed verification (signature, issuer, audience or expiry); nobody was signed in.")
	}
	if nonce == "" || subtle.ConstantTimeCompare([]byte(idToken.Nonce), []byte(nonce)) != 1 {
		h.Log.Warn("oidc id token nonce mismatch", "subject", idToken.Subject)
		return refuse(http.StatusUnauthorized, "The identity provider's ID token does not carry this sign-in's nonce; nobody was signed in.")
	}
	var claims idTokenClaims
	if err := idToken.Claims(&claims); err != nil {
		return refuse(http.StatusUnauthorized, "The identity provider's ID token could not be read; nobody was signed in.")
	}
	if claims.Email == "" || !claims.EmailVerified.yes() {
		return refuse(http.StatusForbidden, "Your identity provider did not confirm your email address (email_verified), so Hindsight cannot sign you in with it. Ask the provider's admin to verify it.")
	}
	user, err := h.Store.SignInWithOIDC(ctx, models.OIDCSignIn{
		Issuer: idToken.Issuer, Subject: idToken.Subject, Email: claims.Email, Name: claims.Name,
		Role: o.roleFor(claims.Groups.list()), LinkByEmail: o.cfg.LinkByEmail, RefreshToken: o.seal(token.RefreshToken),
	})
	switch {
	case errors.Is(err, models.ErrIdentityUnlinked):
		return refuse(http.StatusForbidden, "An account with the email "+models.NormalizeEmail(claims.Email)+" already exists here and is not linked to this identity, so it was not taken over. Sign in with its password, or ask an admin.")
	case errors.Is(err, models.ErrAccountDisabled):
		return refuse(http.StatusForbidden, "This account is disabled. Ask an admin if you need it back.")
	case err != nil:
		return err
	}
	if err := h.startSession(c, user); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, next)
}

// idTokenClaims are the ID token's claims Hindsight reads besides those go-oidc checks.
type idTokenClaims struct {
	Email         string    `json:"email"`
	EmailVerified flexBool  `json:"email_verified"`
	Name          string    `json:"name"`
	Groups        flexGroup `json:"groups"`
}

// flexBool reads a claim some providers send as true and others as "true".
type flexBool string

func (b *flexBool) UnmarshalJSON(raw []byte) error {
	*b = flexBool(strings.Trim(string(raw), `"`))
	return nil
}

func (b flexBool) yes() bool { return strings.EqualFold(string(b), "true") }

// flexGroup reads a groups claim sent as a list, or as one string when there is one group.
type flexGroup []string

func (g *flexGroup) UnmarshalJSON(raw []byte) error {
	var list []string
	if err := json.Unmarshal(raw, &list); err == nil {
		*g = list
		return nil
	}
	var one string
	if err := json.Unmarshal(raw, &one); err != nil {
		return nil // a groups claim of another shape grants nothing
	}
	*g = flexGroup{one}
	return nil
}

func (g flexGroup) list() []string { return g }
