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
		return res.Error
	})
	if err != nil {
		return 0, fmt.Errorf("disable user: %w", err)
	}
	return revoked, nil
}
