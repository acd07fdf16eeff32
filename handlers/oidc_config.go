package handlers

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"

	"hindsight/models"
)

// OIDCTimeout bounds every exchange with the identity provider: discovery, the code exchange and
// fetching its keys. A provider that does not answer in time is treated as down.
const OIDCTimeout = 5 * time.Second

// OIDCDown is what the sign-in page says when the identity provider does not answer.
const OIDCDown = "The identity provider does not answer; password sign-in still works for break-glass accounts."

// OIDCConfig configures sign-in with an OpenID Connect provider.
type OIDCConfig struct {
	Issuer       string
	ClientID     string
	ClientSecret string
	// Name is the provider's name on the sign-in button: "Sign in with <Name>".
	Name string
	// AdminGroups, ResponderGroups and ViewerGroups map the groups claim to roles: the strongest
	// role any of a person's groups grants; someone in none of them gets DefaultRole (viewer
	// when empty).
	AdminGroups     []string
	ResponderGroups []string
	ViewerGroups    []string
	DefaultRole     string
	// LinkByEmail lets the first provider sign-in with a verified email take over an existing
	// account with that email. Off (the default), such a sign-in is refused.
	LinkByEmail bool
	// HTTPClient talks to the provider; nil means one bounded by OIDCTimeout.
	HTTPClient *http.Client
}

// PasswordSignIn says who may sign in with a password.
type PasswordSignIn struct {
	// BreakGlassOnly turns password sign-in off for every account but those in BreakGlass.
	BreakGlassOnly bool
	BreakGlass     []string
}

// Allows tells whether the account with this email may sign in with its password.
func (p PasswordSignIn) Allows(email string) bool {
	if !p.BreakGlassOnly {
		return true
	}
	return breakGlassIncludes(p.BreakGlass, email)
}

// OIDC is the identity provider in force. Its discovery document is fetched on the first
// sign-in, not at start-up, so the server starts while the provider is down; a failed discovery
// is not kept, and the next sign-in tries again.
type OIDC struct {
	cfg    OIDCConfig
	want   OIDCConfig // as SignIn asked for it, before defaults, to tell a change
	client *http.Client

	mu       sync.Mutex
	provider *oidc.Provider
}

// NewOIDC makes the provider of a configuration; nil when no issuer is configured.
func NewOIDC(cfg OIDCConfig) *OIDC {
	if cfg.Issuer == "" {
		return nil
	}
	if strings.TrimSpace(cfg.Name) == "" {
		cfg.Name = "your identity provider"
	}
	if models.RoleRank(cfg.DefaultRole) == 0 {
		cfg.DefaultRole = models.RoleViewer
	}
	client := cfg.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: OIDCTimeout}
	}
	return &OIDC{cfg: cfg, client: client}
}

// Name is how the sign-in page names the provider.
func (o *OIDC) Name() string { return o.cfg.Name }

// context carries the provider's HTTP client to go-oidc and x/oauth2, bounded by OIDCTimeout.
func (o *OIDC) context(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(ctx, OIDCTimeout)
	return oidc.ClientContext(ctx, o.client), cancel
}

// discover returns the provider, fetching its discovery document the first time. Concurrent
// first sign-ins may each fetch it; none waits behind another's timeout.
func (o *OIDC) discover(ctx context.Context) (*oidc.Provider, error) {
	o.mu.Lock()
	p := o.provider
	o.mu.Unlock()
	if p != nil {
		return p, nil
	}
	ctx, cancel := o.context(ctx)
	defer cancel()
	// The provider keeps the client (not the deadline) of this context to fetch its keys later.
	p, err := oidc.NewProvider(ctx, o.cfg.Issuer)
	if err != nil {
		return nil, err
	}
	o.mu.Lock()
	if o.provider == nil {
		o.provider = p
	}
	p = o.provider
	o.mu.Unlock()
	return p, nil
}

// roleFor maps the groups claim to a role: the strongest role any group grants, else the
// default role.
func (o *OIDC) roleFor(groups []string) string {
	has := func(names []string) bool {
		return slices.ContainsFunc(groups, func(g string) bool { return slices.Contains(names, g) })
	}
	switch {
	case has(o.cfg.AdminGroups):
		return models.RoleAdmin
	case has(o.cfg.ResponderGroups):
		return models.RoleResponder
	case has(o.cfg.ViewerGroups):
		return models.RoleViewer
	}
	return o.cfg.DefaultRole
}

// scopes asks for the groups claim only when groups decide something: some providers refuse a
// scope they do not know.
// offline_access is asked for when the provider offers it, for a refresh token the re-check
// can ask the provider again with (see Recheck).
func (o *OIDC) scopes(provider *oidc.Provider) []string {
	scopes := []string{oidc.ScopeOpenID, "email", "profile"}
	if len(o.cfg.AdminGroups)+len(o.cfg.ResponderGroups)+len(o.cfg.ViewerGroups) > 0 {
		scopes = append(scopes, "groups")
	}
	var offered struct {
		Scopes []string `json:"scopes_supported"`
	}
	if provider.Claims(&offered) == nil && slices.Contains(offered.Scopes, oidc.ScopeOfflineAccess) {
		scopes = append(scopes, oidc.ScopeOfflineAccess)
	}
	return scopes
}

// sameConfig tells whether two configurations make the same provider.
func sameConfig(a, b OIDCConfig) bool {
	return a.Issuer == b.Issuer && a.ClientID == b.ClientID && a.ClientSecret == b.ClientSecret && a.Name == b.Name &&
		slices.Equal(a.AdminGroups, b.AdminGroups) && slices.Equal(a.ResponderGroups, b.ResponderGroups) &&
		slices.Equal(a.ViewerGroups, b.ViewerGroups) && a.DefaultRole == b.DefaultRole && a.LinkByEmail == b.LinkByEmail &&
		a.HTTPClient == b.HTTPClient
}
