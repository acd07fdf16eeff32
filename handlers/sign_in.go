package handlers

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"

	"hindsight/models"
)

// SignIn is how people sign in: the identity provider in force and who keeps password sign-in.
// The settings an admin saved on the settings page win over the server's flags, which are in
// force until then; the break-glass emails of the flags keep password sign-in whatever was
// saved, so whoever runs the server always has a way back in.
type SignIn struct {
	store      *models.Store
	log        *slog.Logger
	seed       OIDCConfig
	seedPolicy PasswordSignIn

	mu      sync.Mutex
	current *OIDC // kept while the configuration stays the same, with its discovery
}

// NewSignIn starts from the server's flags.
func NewSignIn(store *models.Store, log *slog.Logger, seed OIDCConfig, policy PasswordSignIn) *SignIn {
	return &SignIn{store: store, log: log, seed: seed, seedPolicy: policy}
}

// Seed is the flags' configuration, for the settings form to start from.
func (s *SignIn) Seed() (OIDCConfig, PasswordSignIn) { return s.seed, s.seedPolicy }

// Current returns the provider in force, nil when none is, and the password policy.
func (s *SignIn) Current(ctx context.Context) (*OIDC, PasswordSignIn, error) {
	cfg, policy := s.seed, s.seedPolicy
	saved, ok, err := s.store.SignInSettings(ctx)
	if err != nil {
		return nil, policy, err
	}
	if ok {
		cfg = OIDCConfig{
			Issuer: saved.Issuer, ClientID: saved.ClientID, ClientSecret: saved.ClientSecret, Name: saved.Name,
			AdminGroups: models.SplitList(saved.AdminGroups), ResponderGroups: models.SplitList(saved.ResponderGroups),
			ViewerGroups: models.SplitList(saved.ViewerGroups), DefaultRole: saved.DefaultRole,
			LinkByEmail: s.seed.LinkByEmail, HTTPClient: s.seed.HTTPClient,
		}
		if cfg.ClientSecret == "" && cfg.Issuer == s.seed.Issuer && cfg.ClientID == s.seed.ClientID {
			cfg.ClientSecret = s.seed.ClientSecret // never saved: the flag's, for the same client
		}
		policy = PasswordSignIn{BreakGlassOnly: saved.PasswordSignIn == models.PasswordSignInBreakGlass,
			BreakGlass: append(models.SplitList(saved.BreakGlass), s.seedPolicy.BreakGlass...)}
	}
	if cfg.Issuer == "" {
		return nil, policy, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.current == nil || !sameConfig(s.current.want, cfg) {
		s.current = NewOIDC(cfg)
		s.current.want = cfg
	}
	return s.current, policy, nil
}

// Validate fetches an issuer's discovery document, within OIDCTimeout, and says in a sentence
// what is wrong when it fails; "" when the issuer answers as one.
func (s *SignIn) Validate(ctx context.Context, issuer string) string {
	o := NewOIDC(OIDCConfig{Issuer: issuer, HTTPClient: s.seed.HTTPClient})
	if _, err := o.discover(ctx); err != nil {
		var netErr net.Error
		if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()) {
			return "The provider did not answer within " + OIDCTimeout.String() + " at " + issuer + "/.well-known/openid-configuration; nothing was saved."
		}
		return "This is not an OpenID provider's issuer that Hindsight can reach (" + discoveryProblem(err) + "); nothing was saved. Check the address, realm or tenant included."
	}
	return ""
}

// discoveryProblem is the gist of a failed discovery, without the whole error chain.
func discoveryProblem(err error) string {
	msg := err.Error()
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	return msg
}

// seal encrypts a refresh token with a key derived from the client's own credentials: a copy of
// the database alone (a backup) does not give the provider's tokens away.
func (o *OIDC) seal(token string) string {
	if token == "" {
		return ""
	}
	gcm := o.aead()
	nonce := make([]byte, gcm.NonceSize())
	_, _ = rand.Read(nonce)
	return "v1." + base64.RawURLEncoding.EncodeToString(gcm.Seal(nonce, nonce, []byte(token), nil))
}

// unseal reads a sealed refresh token; it fails for one sealed under other credentials.
func (o *OIDC) unseal(sealed string) (string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(sealed, "v1."))
	if err != nil || !strings.HasPrefix(sealed, "v1.") {
		return "", errors.New("not a sealed refresh token")
	}
	gcm := o.aead()
	if len(raw) < gcm.NonceSize() {
		return "", errors.New("sealed refresh token too short")
	}
	plain, err := gcm.Open(nil, raw[:gcm.NonceSize()], raw[gcm.NonceSize():], nil)
	if err != nil {
		return "", errors.New("refresh token sealed under other client credentials")
	}
	return string(plain), nil
}

func (o *OIDC) aead() cipher.AEAD {
	key := sha256.Sum256([]byte("hindsight oidc refresh token\x00" + o.cfg.Issuer + "\x00" + o.cfg.ClientID + "\x00" + o.cfg.ClientSecret))
	block, _ := aes.NewCipher(key[:])
	gcm, _ := cipher.NewGCM(block)
	return gcm
}

// breakGlassIncludes tells whether the email is one of the list.
func breakGlassIncludes(list []string, email string) bool {
	email = models.NormalizeEmail(email)
	return slices.ContainsFunc(list, func(b string) bool { return models.NormalizeEmail(b) == email })
}
