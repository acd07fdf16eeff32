package handlers

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"net/http"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/labstack/echo/v4"
	"golang.org/x/oauth2"

	"hindsight/templates"
)

// What a sign-in started at the provider keeps in the session until its callback, which takes
// them out at once so that each serves one callback only.
const (
	sessionOIDCState    = "oidc_state"
	sessionOIDCNonce    = "oidc_nonce"
	sessionOIDCVerifier = "oidc_verifier"
	sessionOIDCNext     = "oidc_next"
)

// OIDCCallbackPath is where the provider sends people back; register the base URL followed by
// it at the provider.
const OIDCCallbackPath = "/login/oidc/callback"

// OIDCLogin starts a sign-in at the identity provider: the authorization code flow with PKCE,
// with a fresh state and nonce kept server-side in the session.
func (h *Handlers) OIDCLogin(c echo.Context) error {
	ctx := c.Request().Context()
	o, _, err := h.SignIn.Current(ctx)
	if err != nil {
		return err
	}
	if o == nil {
		return echo.NewHTTPError(http.StatusNotFound, "Sign-in with an identity provider is not set up here.")
	}
	next := safeNext(c.QueryParam("next"))
	provider, err := o.discover(ctx)
	if err != nil {
		h.Log.Warn("oidc discovery failed", "issuer", o.cfg.Issuer, "err", err)
		return h.renderLogin(c, http.StatusServiceUnavailable, templates.LoginView{Next: next, Error: OIDCDown})
	}
	conf, err := h.oauth2Config(ctx, o, provider)
	if err != nil {
		return err
	}
	state, nonce, verifier := randomSecret(), randomSecret(), oauth2.GenerateVerifier()
	h.Sessions.Put(ctx, sessionOIDCState, state)
	h.Sessions.Put(ctx, sessionOIDCNonce, nonce)
	h.Sessions.Put(ctx, sessionOIDCVerifier, verifier)
	h.Sessions.Put(ctx, sessionOIDCNext, next)
	return c.Redirect(http.StatusFound, conf.AuthCodeURL(state, oidc.Nonce(nonce), oauth2.S256ChallengeOption(verifier)))
}

// oauth2Config is the client's configuration; its redirect URL comes from the configured base
// URL, never from the request's Host header.
func (h *Handlers) oauth2Config(ctx context.Context, o *OIDC, provider *oidc.Provider) (*oauth2.Config, error) {
	base, err := h.siteBase(ctx)
	if err != nil {
		return nil, err
	}
	return o.oauth2Config(provider, base), nil
}

func (o *OIDC) oauth2Config(provider *oidc.Provider, base string) *oauth2.Config {
	return &oauth2.Config{
		ClientID:     o.cfg.ClientID,
		ClientSecret: o.cfg.ClientSecret,
		Endpoint:     provider.Endpoint(),
		RedirectURL:  base + OIDCCallbackPath,
		Scopes:       o.scopes(provider),
	}
}

// randomSecret is 32 random bytes, for a state or a nonce.
func randomSecret() string {
	raw := make([]byte, 32)
	_, _ = rand.Read(raw)
	return base64.RawURLEncoding.EncodeToString(raw)
}
