package web_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// testIdP is a real OpenID provider for the tests: zitadel's certified op package on loopback,
// over a minimal in-memory storage with one client and a few users. Its login step approves
// whichever user the test chose, and a defect makes it issue one kind of bad ID token.
type testIdP struct {
	*httptest.Server
	storage *idpStorage
}

// idpUser is a person at the provider.
type idpUser struct {
	ID            string
	Email         string
	EmailVerified bool
	Name          string
	Groups        []string
	Disabled      bool // the provider refuses the person's refresh tokens
}

// Defects of the ID tokens the provider issues, each an attack the client must refuse.
const (
	defectNone        = ""
	defectForged      = "forged"   // signed by a key the provider does not publish
	defectExpired     = "expired"  // exp already past
	defectAudience    = "audience" // issued to another client
	defectNoNonce     = "no-nonce" // without the nonce the client sent
	defectWrongNonce  = "wrong-nonce"
	idpClientID       = "hindsight"
	idpClientSecret   = "hindsight-secret"
	idpSigningKeyID   = "test-key"
	otherClientID     = "another-client"
	idpAdminGroup     = "hindsight-admins"
	idpResponderGroup = "oncall"
)

// startIdP starts the provider with its users; the client's redirect URL is set later, once the
// app's address is known.
func startIdP(t testing.TB, users ...idpUser) *testIdP {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	forger, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	s := &idpStorage{key: key, forger: forger, users: map[string]*idpUser{}, requests: map[string]*idpAuthRequest{},
		codes: map[string]string{}, tokens: map[string]string{}, refresh: map[string]*idpRefresh{}}
	for n := range users {
		u := users[n]
		s.users[u.ID] = &u
	}
	idp := &testIdP{storage: s}
	mux := http.NewServeMux()
	idp.Server = httptest.NewServer(mux)
	t.Cleanup(idp.Close)
	provider, err := op.NewOpenIDProvider(idp.URL, &op.Config{CryptoKey: sha256.Sum256([]byte("test idp")), CodeMethodS256: true, GrantTypeRefreshToken: true},
		s, op.WithAllowInsecure())
	if err != nil {
		t.Fatal(err)
	}
	// The login step: no form, the chosen user is signed in and the request approved.
	mux.HandleFunc("/login/auto", func(w http.ResponseWriter, r *http.Request) {
		id := r.URL.Query().Get("authRequestID")
		if err := s.approve(id); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		http.Redirect(w, r, idp.URL+"/authorize/callback?id="+url.QueryEscape(id), http.StatusFound)
	})
	mux.Handle("/", s.downable(provider))
	return idp
}

// signInAs chooses who the login step signs in.
func (p *testIdP) signInAs(userID string) {
	p.storage.mu.Lock()
	defer p.storage.mu.Unlock()
	p.storage.login = userID
}

// setDefect makes the next ID tokens carry a defect.
func (p *testIdP) setDefect(d string) {
	p.storage.mu.Lock()
	defer p.storage.mu.Unlock()
	p.storage.defect = d
}

// setGroups changes a user's groups at the provider.
func (p *testIdP) setGroups(userID string, groups ...string) {
	p.storage.mu.Lock()
	defer p.storage.mu.Unlock()
	p.storage.users[userID].Groups = groups
}

// setDown makes the provider answer 503 to everything but the login step, as one being
// redeployed does.
func (p *testIdP) setDown(down bool) {
	p.storage.mu.Lock()
	defer p.storage.mu.Unlock()
	p.storage.down = down
}

// disable disables a person at the provider: their refresh tokens are refused from now on.
func (p *testIdP) disable(userID string) {
	p.storage.mu.Lock()
	defer p.storage.mu.Unlock()
	p.storage.users[userID].Disabled = true
}

// remove deletes a person at the provider.
func (p *testIdP) remove(userID string) {
	p.storage.mu.Lock()
	defer p.storage.mu.Unlock()
	delete(p.storage.users, userID)
}

// refreshes counts the refresh tokens the provider holds for a person.
func (p *testIdP) refreshes(userID string) int {
	p.storage.mu.Lock()
	defer p.storage.mu.Unlock()
	n := 0
	for _, r := range p.storage.refresh {
		if r.subject == userID {
			n++
		}
	}
	return n
}

func (p *testIdP) setRedirect(uri string) {
	p.storage.mu.Lock()
	defer p.storage.mu.Unlock()
	p.storage.redirect = uri
}

// idpStorage is the provider's in-memory op.Storage.
type idpStorage struct {
	key, forger *rsa.PrivateKey

	mu       sync.Mutex
	redirect string
	login    string
	defect   string
	down     bool
	users    map[string]*idpUser
	requests map[string]*idpAuthRequest
	codes    map[string]string // code → request id
	tokens   map[string]string // access token id → subject
	refresh  map[string]*idpRefresh
}

// idpRefresh is a refresh token's grant.
type idpRefresh struct {
	subject, clientID string
	scopes            []string
	authTime          time.Time
}

func (r *idpRefresh) GetAMR() []string             { return []string{"pwd"} }
func (r *idpRefresh) GetAudience() []string        { return []string{r.clientID} }
func (r *idpRefresh) GetAuthTime() time.Time       { return r.authTime }
func (r *idpRefresh) GetClientID() string          { return r.clientID }
func (r *idpRefresh) GetScopes() []string          { return r.scopes }
func (r *idpRefresh) GetSubject() string           { return r.subject }
func (r *idpRefresh) SetCurrentScopes(sc []string) { r.scopes = sc }

func (s *idpStorage) downable(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		down := s.down
		s.mu.Unlock()
		if down {
			http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *idpStorage) approve(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	req, ok := s.requests[id]
	if !ok {
		return errors.New("no such auth request")
	}
	if _, ok := s.users[s.login]; !ok {
		return errors.New("the test chose no user to sign in")
	}
	req.subject, req.done, req.authTime = s.login, true, time.Now().UTC()
	return nil
}

type notFound struct{ error }

func (notFound) IsNotFound() {}

var errNotFound = notFound{errors.New("not found")}

// idpAuthRequest is one authorization request; a defect fixed at its creation changes what the
// ID token issued for it says.
type idpAuthRequest struct {
	id, clientID, redirectURI, state, nonce, subject string
	scopes                                           []string
	responseType                                     oidc.ResponseType
	responseMode                                     oidc.ResponseMode
	challenge                                        *oidc.CodeChallenge
	done                                             bool
	authTime                                         time.Time
	defect                                           string
}

func (r *idpAuthRequest) GetID() string    { return r.id }
func (r *idpAuthRequest) GetACR() string   { return "" }
func (r *idpAuthRequest) GetAMR() []string { return []string{"pwd"} }

// GetClientID and GetAudience name another client under the audience defect: the provider
// always adds the request's client to the audience, so the token is then one issued to another
// client altogether.
func (r *idpAuthRequest) GetClientID() string {
	if r.defect == defectAudience {
		return otherClientID
	}
	return r.clientID
}
func (r *idpAuthRequest) GetAudience() []string                 { return []string{r.GetClientID()} }
func (r *idpAuthRequest) GetAuthTime() time.Time                { return r.authTime }
func (r *idpAuthRequest) GetCodeChallenge() *oidc.CodeChallenge { return r.challenge }
func (r *idpAuthRequest) GetNonce() string {
	switch r.defect {
	case defectNoNonce:
		return ""
	case defectWrongNonce:
		return "not-the-nonce-that-was-sent"
	}
	return r.nonce
}
func (r *idpAuthRequest) GetRedirectURI() string             { return r.redirectURI }
func (r *idpAuthRequest) GetResponseType() oidc.ResponseType { return r.responseType }
func (r *idpAuthRequest) GetResponseMode() oidc.ResponseMode { return r.responseMode }
func (r *idpAuthRequest) GetScopes() []string                { return r.scopes }
func (r *idpAuthRequest) GetState() string                   { return r.state }
func (r *idpAuthRequest) GetSubject() string                 { return r.subject }
func (r *idpAuthRequest) Done() bool                         { return r.done }

func (s *idpStorage) CreateAuthRequest(_ context.Context, in *oidc.AuthRequest, _ string) (op.AuthRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	req := &idpAuthRequest{id: rand.Text(), clientID: in.ClientID, redirectURI: in.RedirectURI, state: in.State, nonce: in.Nonce,
		scopes: in.Scopes, responseType: in.ResponseType, responseMode: in.ResponseMode, defect: s.defect}
	if in.CodeChallenge != "" {
		req.challenge = &oidc.CodeChallenge{Challenge: in.CodeChallenge, Method: in.CodeChallengeMethod}
	}
	s.requests[req.id] = req
	return req, nil
}

func (s *idpStorage) AuthRequestByID(_ context.Context, id string) (op.AuthRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if req, ok := s.requests[id]; ok {
		return req, nil
	}
	return nil, errNotFound
}

func (s *idpStorage) AuthRequestByCode(_ context.Context, code string) (op.AuthRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if req, ok := s.requests[s.codes[code]]; ok {
		return req, nil
	}
	return nil, errNotFound
}

func (s *idpStorage) SaveAuthCode(_ context.Context, id, code string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.codes[code] = id
	return nil
}

func (s *idpStorage) DeleteAuthRequest(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.requests, id)
	for code, rid := range s.codes {
		if rid == id {
			delete(s.codes, code)
		}
	}
	return nil
}

func (s *idpStorage) CreateAccessToken(_ context.Context, req op.TokenRequest) (string, time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := rand.Text()
	s.tokens[id] = req.GetSubject()
	return id, time.Now().Add(5 * time.Minute), nil
}

// CreateAccessAndRefreshTokens issues a refresh token for offline_access, rotating the one
// it was refreshed with.
func (s *idpStorage) CreateAccessAndRefreshTokens(_ context.Context, req op.TokenRequest, current string) (string, string, time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	grant := &idpRefresh{subject: req.GetSubject(), clientID: idpClientID, authTime: time.Now().UTC()}
	switch r := req.(type) {
	case op.AuthRequest:
		grant.scopes, grant.authTime = r.GetScopes(), r.GetAuthTime()
	case op.RefreshTokenRequest:
		grant.scopes, grant.authTime = r.GetScopes(), r.GetAuthTime()
	}
	delete(s.refresh, current)
	id, refresh := rand.Text(), rand.Text()
	s.tokens[id] = req.GetSubject()
	s.refresh[refresh] = grant
	return id, refresh, time.Now().Add(5 * time.Minute), nil
}

// TokenRequestByRefreshToken refuses the token of a person removed or disabled here, which the
// op package answers invalid_grant.
func (s *idpStorage) TokenRequestByRefreshToken(_ context.Context, token string) (op.RefreshTokenRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	grant, ok := s.refresh[token]
	if !ok {
		return nil, op.ErrInvalidRefreshToken
	}
	if u, ok := s.users[grant.subject]; !ok || u.Disabled {
		return nil, op.ErrInvalidRefreshToken
	}
	return grant, nil
}

func (s *idpStorage) TerminateSession(context.Context, string, string) error { return nil }

func (s *idpStorage) RevokeToken(context.Context, string, string, string) *oidc.Error { return nil }

func (s *idpStorage) GetRefreshTokenInfo(context.Context, string, string) (string, string, error) {
	return "", "", op.ErrInvalidRefreshToken
}

type idpKey struct {
	key *rsa.PrivateKey
}

func (k idpKey) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k idpKey) Algorithm() jose.SignatureAlgorithm          { return jose.RS256 }
func (k idpKey) ID() string                                  { return idpSigningKeyID }
func (k idpKey) Use() string                                 { return "sig" }

type idpPrivateKey struct{ idpKey }

func (k idpPrivateKey) Key() any { return k.key }

type idpPublicKey struct{ idpKey }

func (k idpPublicKey) Key() any { return &k.key.PublicKey }

// SigningKey signs with the published key, or, to forge, with another under the same key id.
func (s *idpStorage) SigningKey(context.Context) (op.SigningKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.defect == defectForged {
		return idpPrivateKey{idpKey{s.forger}}, nil
	}
	return idpPrivateKey{idpKey{s.key}}, nil
}

func (s *idpStorage) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.RS256}, nil
}

func (s *idpStorage) KeySet(context.Context) ([]op.Key, error) {
	return []op.Key{idpPublicKey{idpKey{s.key}}}, nil
}

func (s *idpStorage) GetClientByClientID(_ context.Context, id string) (op.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id != idpClientID && (id != otherClientID || s.defect != defectAudience) {
		return nil, errNotFound
	}
	lifetime := 5 * time.Minute
	if s.defect == defectExpired {
		lifetime = -time.Hour
	}
	client := &idpClient{id: idpClientID, redirect: s.redirect, lifetime: lifetime}
	if s.defect == defectAudience {
		client.id = otherClientID
	}
	return client, nil
}

func (s *idpStorage) AuthorizeClientIDSecret(_ context.Context, id, secret string) error {
	if (id != idpClientID && id != otherClientID) || secret != idpClientSecret {
		return errors.New("wrong client credentials")
	}
	return nil
}

func (s *idpStorage) SetUserinfoFromScopes(context.Context, *oidc.UserInfo, string, string, []string) error {
	return nil
}

// SetUserinfoFromRequest puts the user's claims into the ID token, by the scopes asked for.
func (s *idpStorage) SetUserinfoFromRequest(_ context.Context, info *oidc.UserInfo, req op.IDTokenRequest, scopes []string) error {
	return s.userinfo(info, req.GetSubject(), scopes)
}

func (s *idpStorage) userinfo(info *oidc.UserInfo, subject string, scopes []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.users[subject]
	if !ok {
		return errNotFound
	}
	info.Subject = u.ID
	if slices.Contains(scopes, "email") {
		info.Email, info.EmailVerified = u.Email, oidc.Bool(u.EmailVerified)
	}
	if slices.Contains(scopes, "profile") {
		info.Name = u.Name
	}
	if slices.Contains(scopes, "groups") {
		info.AppendClaims("groups", slices.Clone(u.Groups))
	}
	return nil
}

func (s *idpStorage) SetUserinfoFromToken(_ context.Context, info *oidc.UserInfo, tokenID, subject, _ string) error {
	return s.userinfo(info, subject, []string{"email", "profile", "groups"})
}

func (s *idpStorage) SetIntrospectionFromToken(context.Context, *oidc.IntrospectionResponse, string, string, string) error {
	return nil
}

func (s *idpStorage) GetPrivateClaimsFromScopes(context.Context, string, string, []string) (map[string]any, error) {
	return nil, nil
}

func (s *idpStorage) GetKeyByIDAndClientID(context.Context, string, string) (*jose.JSONWebKey, error) {
	return nil, errNotFound
}

func (s *idpStorage) ValidateJWTProfileScopes(_ context.Context, _ string, scopes []string) ([]string, error) {
	return scopes, nil
}

func (s *idpStorage) Health(context.Context) error { return nil }

// idpClient is Hindsight as the provider knows it: a confidential web client.
type idpClient struct {
	id       string
	redirect string
	lifetime time.Duration
}

func (c *idpClient) GetID() string                       { return c.id }
func (c *idpClient) RedirectURIs() []string              { return []string{c.redirect} }
func (c *idpClient) PostLogoutRedirectURIs() []string    { return nil }
func (c *idpClient) ApplicationType() op.ApplicationType { return op.ApplicationTypeWeb }
func (c *idpClient) AuthMethod() oidc.AuthMethod         { return oidc.AuthMethodBasic }
func (c *idpClient) ResponseTypes() []oidc.ResponseType {
	return []oidc.ResponseType{oidc.ResponseTypeCode}
}
func (c *idpClient) GrantTypes() []oidc.GrantType {
	return []oidc.GrantType{oidc.GrantTypeCode, oidc.GrantTypeRefreshToken}
}
func (c *idpClient) LoginURL(id string) string {
	return "/login/auto?authRequestID=" + url.QueryEscape(id)
}
func (c *idpClient) AccessTokenType() op.AccessTokenType  { return op.AccessTokenTypeBearer }
func (c *idpClient) IDTokenLifetime() time.Duration       { return c.lifetime }
func (c *idpClient) DevMode() bool                        { return true } // http redirect URLs on loopback
func (c *idpClient) IsScopeAllowed(string) bool           { return true }
func (c *idpClient) IDTokenUserinfoClaimsAssertion() bool { return true }
func (c *idpClient) ClockSkew() time.Duration             { return 0 }
func (c *idpClient) RestrictAdditionalIdTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
func (c *idpClient) RestrictAdditionalAccessTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
