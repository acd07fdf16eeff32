package models

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"strings"
	"time"
)

// CalendarFeed is a secret link to one owner's follow-up due dates as iCalendar and their
// changes as Atom. Only the token's hash is stored; revoking it kills the link.
type CalendarFeed struct {
	ID        int64
	UserID    int64
	Owner     string
	TokenHash string `json:"-"`
	CreatedAt time.Time
	RevokedAt *time.Time
}

// CreateCalendarFeed makes a new secret feed link for an owner and returns the secret once.
func (s *Store) CreateCalendarFeed(ctx context.Context, userID int64, owner string) (string, error) {
	raw := make([]byte, 24)
	if _, err := rand.Read(raw); err != nil {
		return "", fmt.Errorf("generate feed token: %w", err)
	}
	secret := base64.RawURLEncoding.EncodeToString(raw)
	feed := CalendarFeed{UserID: userID, Owner: strings.TrimSpace(owner), TokenHash: hashToken(secret)}
	if err := s.write.WithContext(ctx).Create(&feed).Error; err != nil {
		return "", fmt.Errorf("create feed: %w", err)
	}
	return secret, nil
}

// CalendarFeedByToken returns the live feed a secret opens, or ErrNotFound.
func (s *Store) CalendarFeedByToken(ctx context.Context, secret string) (*CalendarFeed, error) {
	var feed CalendarFeed
	err := s.read.WithContext(ctx).Where("token_hash = ? AND revoked_at IS NULL", hashToken(secret)).First(&feed).Error
	if err != nil {
		return nil, notFound(err, "feed")
	}
	return &feed, nil
}

// ListCalendarFeeds lists a user's feed links, newest first.
func (s *Store) ListCalendarFeeds(ctx context.Context, userID int64) ([]CalendarFeed, error) {
	var feeds []CalendarFeed
	if err := s.read.WithContext(ctx).Where("user_id = ?", userID).Order("id DESC").Find(&feeds).Error; err != nil {
		return nil, fmt.Errorf("list feeds: %w", err)
	}
	return feeds, nil
}

// RevokeCalendarFeed ends one of the user's feed links.
func (s *Store) RevokeCalendarFeed(ctx context.Context, userID, id int64) error {
	res := s.write.WithContext(ctx).Model(&CalendarFeed{}).Where("id = ? AND user_id = ? AND revoked_at IS NULL", id, userID).Update("revoked_at", time.Now().UTC())
	if res.Error != nil {
		return fmt.Errorf("revoke feed: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("feed %d: %w", id, ErrNotFound)
	}
	return nil
}
