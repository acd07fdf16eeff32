package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// ErrAccountDisabled is a sign-in by an account an admin disabled.
var ErrAccountDisabled = errors.New("the account is disabled")

// DisableUser disables an account and, in the same transaction, ends every session it has (by
// bumping its session epoch) and revokes its API tokens. It returns how many live tokens it
// revoked. Disabling a disabled account changes nothing and is not an error.
func (s *Store) DisableUser(ctx context.Context, userID int64) (int64, error) {
	var revoked int64
	err := s.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		now := time.Now().UTC()
		var before User
		if err := tx.Select("id", "disabled_at").First(&before, userID).Error; err != nil {
			return notFound(err, fmt.Sprintf("user %d", userID))
		}
		res := tx.Model(&User{}).Where("id = ?", userID).Updates(map[string]any{
			"disabled_at": gorm.Expr("COALESCE(disabled_at, ?)", now), "session_epoch": gorm.Expr("session_epoch + 1"), "updated_at": now,
		})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return fmt.Errorf("user %d: %w", userID, ErrNotFound)
		}
		res = tx.Model(&APIToken{}).Where("user_id = ? AND revoked_at IS NULL", userID).Update("revoked_at", now)
		revoked = res.RowsAffected
		if res.Error != nil || before.DisabledAt != nil {
			return res.Error
		}
		return recordUserChange(tx, actorFrom(ctx), userID, Change{Field: "disabled", Before: false, After: true})
	})
	if err != nil {
		return 0, fmt.Errorf("disable user: %w", err)
	}
	return revoked, nil
}

// EnableUser lets a disabled account sign in again, by password or at the identity provider as
// before; the sessions and API tokens that disabling ended stay ended. Enabling an enabled
// account changes nothing and is not an error. The change is recorded in history.
func (s *Store) EnableUser(ctx context.Context, userID int64) error {
	err := s.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var before User
		if err := tx.Select("id", "disabled_at").First(&before, userID).Error; err != nil {
			return notFound(err, fmt.Sprintf("user %d", userID))
		}
		if before.DisabledAt == nil {
			return nil
		}
		if err := tx.Model(&User{}).Where("id = ?", userID).Updates(map[string]any{"disabled_at": nil, "updated_at": time.Now().UTC()}).Error; err != nil {
			return err
		}
		return recordUserChange(tx, actorFrom(ctx), userID, Change{Field: "disabled", Before: true, After: false})
	})
	if err != nil {
		return fmt.Errorf("enable user: %w", err)
	}
	return nil
}

// UserHistory lists the changes recorded of an account, newest first.
func (s *Store) UserHistory(ctx context.Context, userID int64) ([]AuditEntry, error) {
	var out []AuditEntry
	err := s.read.WithContext(ctx).Where("entity = ? AND entity_id = ?", EntityUser, userID).Order("at DESC").Order("id DESC").Find(&out).Error
	if err != nil {
		return nil, fmt.Errorf("user %d history: %w", userID, err)
	}
	return out, nil
}
