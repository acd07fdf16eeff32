package models

import "context"

// StorePasswordHash writes a stored password hash as it is, so tests can plant one made the way
// an older release made them.
func (s *Store) StorePasswordHash(ctx context.Context, userID int64, hash string) error {
	return s.write.WithContext(ctx).Model(&User{}).Where("id = ?", userID).Update("password_hash", hash).Error
}
