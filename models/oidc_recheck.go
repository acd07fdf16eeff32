package models

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// EntityUser names accounts in history.
const EntityUser = "user"

// IdentitiesToRecheck lists up to limit identities at the issuer whose provider last vouched for
// them before the given instant and that hold a refresh token to ask again with, oldest check
// first. Disabled accounts are left out: they have no session to end.
func (s *Store) IdentitiesToRecheck(ctx context.Context, issuer string, before time.Time, limit int) ([]OIDCIdentity, error) {
	var out []OIDCIdentity
	err := s.read.WithContext(ctx).
		Where("issuer = ? AND refresh_token <> '' AND (checked_at IS NULL OR checked_at < ?)", issuer, before.UTC()).
		Where("user_id IN (?)", s.read.Model(&User{}).Select("id").Where("disabled_at IS NULL")).
		Order("checked_at").Order("id").Limit(limit).Find(&out).Error
	if err != nil {
		return nil, fmt.Errorf("identities to re-check: %w", err)
	}
	return out, nil
}

// IdentityVouched records that the provider accepted the identity again; a refresh token it
// rotated (sealed by the caller) replaces the stored one.
func (s *Store) IdentityVouched(ctx context.Context, identityID int64, refreshToken string) error {
	set := map[string]any{"checked_at": time.Now().UTC()}
	if refreshToken != "" {
		set["refresh_token"] = refreshToken
	}
	if err := s.write.WithContext(ctx).Model(&OIDCIdentity{}).Where("id = ?", identityID).Updates(set).Error; err != nil {
		return fmt.Errorf("identity %d vouched: %w", identityID, err)
	}
	return nil
}

// IdentityRefused ends every session of the identity's account, because its provider refused
// it, and forgets the refresh token the provider no longer honours. Nothing else changes: the
// account stays enabled and keeps its API tokens, and its next sign-in is the provider's to
// allow. It is recorded in history.
func (s *Store) IdentityRefused(ctx context.Context, identityID int64, reason string) error {
	err := s.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var ident OIDCIdentity
		if err := tx.First(&ident, identityID).Error; err != nil {
			return err
		}
		now := time.Now().UTC()
		if err := tx.Model(&OIDCIdentity{}).Where("id = ?", ident.ID).Updates(map[string]any{"refresh_token": "", "checked_at": now}).Error; err != nil {
			return err
		}
		if err := tx.Model(&User{}).Where("id = ?", ident.UserID).Update("session_epoch", gorm.Expr("session_epoch + 1")).Error; err != nil {
			return err
		}
		return recordUserChange(tx, Actor{Label: "identity provider"}, ident.UserID, Change{Field: "sessions", Before: "signed in", After: "ended: " + reason})
	})
	if err != nil {
		return notFound(err, fmt.Sprintf("identity %d refused", identityID))
	}
	return nil
}

// recordUserChange adds an account's change to history.
func recordUserChange(tx *gorm.DB, actor Actor, userID int64, changes ...Change) error {
	raw, err := json.Marshal(changes)
	if err != nil {
		return err
	}
	entry := AuditEntry{At: time.Now().UTC(), Actor: actor.Label, Action: ActionUpdate, Entity: EntityUser, EntityID: userID, Changes: string(raw)}
	if actor.UserID != 0 {
		entry.ActorID = &actor.UserID
	}
	if err := tx.Create(&entry).Error; err != nil {
		return fmt.Errorf("record history: %w", err)
	}
	return nil
}
