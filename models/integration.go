package models

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
)

// Integration kinds: the alerting systems that may open incidents.
const (
	IntegrationAlertmanager = "alertmanager"
	IntegrationGrafana      = "grafana"
	IntegrationPagerDuty    = "pagerduty"
	IntegrationGeneric      = "generic"
)

// IntegrationKinds are the kinds an admin may create.
var IntegrationKinds = []string{IntegrationAlertmanager, IntegrationGrafana, IntegrationPagerDuty, IntegrationGeneric}

// IntegrationSecretPrefix starts every integration secret, so a leaked one is recognisable.
const IntegrationSecretPrefix = "hsi_"

// Integration is an alerting system allowed to send alerts to one receiver address. Its bearer
// secret is kept only as a SHA-256; a PagerDuty integration also keeps its HMAC key, since a
// signature cannot be checked against a hash.
type Integration struct {
	ID         int64
	Kind       string
	Name       string
	SecretHash string `json:"-"`
	SigningKey string `json:"-"`
	Mapping    string // the generic receiver's field mapping, JSON
	CreatedAt  time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
}

// Revoked tells whether the integration no longer accepts alerts.
func (i *Integration) Revoked() bool { return i.RevokedAt != nil }

// GenericMapping says where the generic receiver finds each field in a JSON alert: a dotted path
// ("alert.labels.service"), read from each element of the body when it is an array, else from
// the body. Times are RFC 3339 strings or Unix seconds.
type GenericMapping struct {
	Title    string `json:"title"`
	Severity string `json:"severity,omitempty"`
	Service  string `json:"service,omitempty"`
	Summary  string `json:"summary,omitempty"`
	Status   string `json:"status,omitempty"` // "resolved", "ok" or "closed" resolve; "acknowledged" acknowledges
	StartsAt string `json:"starts_at,omitempty"`
	EndsAt   string `json:"ends_at,omitempty"`
	DedupKey string `json:"dedup_key"`
	// Fingerprint tells alerts of one dedup key apart; the dedup key when empty.
	Fingerprint string `json:"fingerprint,omitempty"`
}

// ParseGenericMapping reads and checks a mapping; title and dedup_key are required.
func ParseGenericMapping(raw string) (GenericMapping, error) {
	var m GenericMapping
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return m, FieldErrors{{Field: "mapping", Message: "The mapping must be a JSON object of field names to dotted paths, such as {\"title\": \"alert.name\", \"dedup_key\": \"alert.id\"}: " + err.Error()}}
	}
	if strings.TrimSpace(m.Title) == "" || strings.TrimSpace(m.DedupKey) == "" {
		return m, FieldErrors{{Field: "mapping", Message: "The mapping needs at least \"title\" and \"dedup_key\"."}}
	}
	return m, nil
}

// IntegrationInput is a new integration.
type IntegrationInput struct {
	Kind string `json:"kind" validate:"required,oneof=alertmanager grafana pagerduty generic"`
	Name string `json:"name" validate:"required,max=100"`
	// Mapping is required for the generic kind.
	Mapping string `json:"mapping" validate:"max=10000"`
	// SigningKey is PagerDuty's signing secret, when PagerDuty made it; empty makes one.
	SigningKey string `json:"signing_key" validate:"max=200"`
}

// Check validates the input as the form and the CLI need it.
func (in IntegrationInput) Check() FieldErrors {
	errs := Validate(in)
	if in.Kind == IntegrationGeneric && errs.For("mapping") == "" {
		if _, err := ParseGenericMapping(in.Mapping); err != nil {
			errs = append(errs, err.(FieldErrors)...)
		}
	}
	return errs
}

func newIntegrationSecret() (string, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", fmt.Errorf("generate secret: %w", err)
	}
	return IntegrationSecretPrefix + base64.RawURLEncoding.EncodeToString(raw), nil
}

// CreateIntegration stores a new integration and returns its secret in the clear, the only time
// it is seen. A PagerDuty integration signs with the same secret unless in.SigningKey is given.
func (s *Store) CreateIntegration(ctx context.Context, in IntegrationInput) (string, *Integration, error) {
	if errs := in.Check(); len(errs) > 0 {
		return "", nil, errs
	}
	secret, err := newIntegrationSecret()
	if err != nil {
		return "", nil, err
	}
	integ := Integration{Kind: in.Kind, Name: strings.TrimSpace(in.Name), SecretHash: hashToken(secret), Mapping: in.Mapping, CreatedAt: time.Now().UTC()}
	if in.Kind == IntegrationPagerDuty {
		integ.SigningKey = secret
		if k := strings.TrimSpace(in.SigningKey); k != "" {
			integ.SigningKey, secret = k, k
		}
	}
	if err := s.write.WithContext(ctx).Create(&integ).Error; err != nil {
		return "", nil, fmt.Errorf("create integration: %w", err)
	}
	return secret, &integ, nil
}

// ListIntegrations lists every integration, newest first.
func (s *Store) ListIntegrations(ctx context.Context) ([]Integration, error) {
	var list []Integration
	if err := s.read.WithContext(ctx).Order("id DESC").Find(&list).Error; err != nil {
		return nil, fmt.Errorf("list integrations: %w", err)
	}
	return list, nil
}

// GetIntegration loads one integration, revoked or not.
func (s *Store) GetIntegration(ctx context.Context, id int64) (*Integration, error) {
	var integ Integration
	if err := s.read.WithContext(ctx).First(&integ, id).Error; err != nil {
		return nil, notFound(err, fmt.Sprintf("integration %d", id))
	}
	return &integ, nil
}

// RevokeIntegration stops an integration for good: its receiver answers 401 from now on.
func (s *Store) RevokeIntegration(ctx context.Context, id int64) error {
	res := s.write.WithContext(ctx).Model(&Integration{}).Where("id = ? AND revoked_at IS NULL", id).
		Updates(map[string]any{"revoked_at": time.Now().UTC(), "signing_key": ""})
	if res.Error != nil {
		return fmt.Errorf("revoke integration %d: %w", id, res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("integration %d: %w", id, ErrNotFound)
	}
	return nil
}

// ErrUnauthorized is a missing or wrong secret or signature.
var ErrUnauthorized = errors.New("unauthorized")

// AuthenticateIntegration finds the live integration id whose bearer secret this is, else
// ErrUnauthorized. Unknown ids and wrong secrets look the same to the caller.
func (s *Store) AuthenticateIntegration(ctx context.Context, id int64, secret string) (*Integration, error) {
	integ, err := s.liveIntegration(ctx, id)
	if err != nil {
		return nil, err
	}
	if secret == "" || subtle.ConstantTimeCompare([]byte(hashToken(secret)), []byte(integ.SecretHash)) != 1 {
		return nil, fmt.Errorf("integration %d: wrong secret: %w", id, ErrUnauthorized)
	}
	return integ, nil
}

// VerifyPagerDutySignature checks X-PagerDuty-Signature ("v1=<hex>", several separated by
// commas while PagerDuty rotates a key) against the raw body.
func (s *Store) VerifyPagerDutySignature(ctx context.Context, id int64, header string, body []byte) (*Integration, error) {
	integ, err := s.liveIntegration(ctx, id)
	if err != nil {
		return nil, err
	}
	if integ.SigningKey == "" {
		return nil, fmt.Errorf("integration %d has no signing key: %w", id, ErrUnauthorized)
	}
	mac := hmac.New(sha256.New, []byte(integ.SigningKey))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, part := range strings.Split(header, ",") {
		hexSig, ok := strings.CutPrefix(strings.TrimSpace(part), "v1=")
		if !ok {
			continue
		}
		got, err := hex.DecodeString(hexSig)
		if err == nil && hmac.Equal(got, want) {
			return integ, nil
		}
	}
	return nil, fmt.Errorf("integration %d: bad signature: %w", id, ErrUnauthorized)
}

func (s *Store) liveIntegration(ctx context.Context, id int64) (*Integration, error) {
	var integ Integration
	err := s.read.WithContext(ctx).Where("id = ? AND revoked_at IS NULL", id).First(&integ).Error
	if err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil, fmt.Errorf("integration %d: %w", id, ErrUnauthorized)
		}
		return nil, fmt.Errorf("integration %d: %w", id, err)
	}
	return &integ, nil
}

// SignPagerDuty computes the X-PagerDuty-Signature value for a body; tests and senders use it.
func SignPagerDuty(key string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(key))
	mac.Write(body)
	return "v1=" + hex.EncodeToString(mac.Sum(nil))
}
