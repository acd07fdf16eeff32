package models

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
)

// TokenPrefix starts every API token, so a leaked one is easy to recognise and search for.
const TokenPrefix = "hs_"

// TokenUseInterval is how stale a token's last use may get before a request through it records
// the use again.
const TokenUseInterval = time.Minute

// APIToken is a credential for the JSON API. Only its hash is stored.
type APIToken struct {
	ID         int64
	UserID     int64
	Name       string
	TokenHash  string `json:"-"`
	CreatedAt  time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
}

func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// CreateToken makes a new API token for a user and returns it in the clear, the only time it
// is ever seen.
func (s *Store) CreateToken(ctx context.Context, userID int64, name string) (string, *APIToken, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", nil, fmt.Errorf("generate token: %w", err)
	}
	secret := TokenPrefix + base64.RawURLEncoding.EncodeToString(raw)
	tok := APIToken{UserID: userID, Name: strings.TrimSpace(name), TokenHash: hashToken(secret)}
	if err := s.write.WithContext(ctx).Create(&tok).Error; err != nil {
		return "", nil, fmt.Errorf("create token: %w", err)
	}
	return secret, &tok, nil
}

// UserByToken returns the owner of a live token, or ErrNotFound for an unknown or revoked one.
func (s *Store) UserByToken(ctx context.Context, secret string) (*User, error) {
	// The token and its account in one statement.
	var rows []struct {
		ID         int64
		LastUsedAt *time.Time
		User       User `gorm:"embedded;embeddedPrefix:u_"`
	}
	err := s.read.WithContext(ctx).Raw(`SELECT t.id, t.last_used_at, `+accountColumns+`
		FROM api_tokens t JOIN users u ON u.id = t.user_id
		WHERE t.token_hash = ? AND t.revoked_at IS NULL`, hashToken(secret)).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("find token: %w", err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("token: %w", ErrNotFound)
	}
	tok, user := rows[0], rows[0].User
	now := time.Now().UTC()
	// Record use at most once a minute: a busy client should not turn every read into a write.
	// The condition is checked again in the update, so several server processes reading the same
	// old value still write once.
	if tok.LastUsedAt == nil || now.Sub(*tok.LastUsedAt) > TokenUseInterval {
		err := s.write.WithContext(ctx).Model(&APIToken{}).
			Where("id = ? AND (last_used_at IS NULL OR last_used_at < ?)", tok.ID, now.Add(-TokenUseInterval)).
			Update("last_used_at", now).Error
		if err != nil {
			return nil, fmt.Errorf("note token use: %w", err)
		}
	}
	return &user, nil
}

// ListTokens lists a user's tokens, newest first.
func (s *Store) ListTokens(ctx context.Context, userID int64) ([]APIToken, error) {
	var tokens []APIToken
	if err := s.read.WithContext(ctx).Where("user_id = ?", userID).Order("id DESC").Find(&tokens).Error; err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	return tokens, nil
}

// RevokeToken ends a user's token for good.
func (s *Store) RevokeToken(ctx context.Context, userID, tokenID int64) error {
	res := s.write.WithContext(ctx).Model(&APIToken{}).Where("id = ? AND user_id = ? AND revoked_at IS NULL", tokenID, userID).
		Update("revoked_at", time.Now().UTC())
	if res.Error != nil {
		return fmt.Errorf("revoke token: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("token %d: %w", tokenID, ErrNotFound)
	}
	return nil
}
