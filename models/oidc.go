package models

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
)

// OIDCIdentity ties an account to its subject at an OpenID provider.
type OIDCIdentity struct {
	ID           int64
	UserID       int64
	Issuer       string
	Subject      string
	CreatedAt    time.Time
	LastSignInAt time.Time
}

// TableName is the table gorm keeps identities in.
func (OIDCIdentity) TableName() string { return "oidc_identities" }

// OIDCSignIn is what a provider vouched for in a verified ID token, with the role the groups
// mapping gave it.
type OIDCSignIn struct {
	Issuer  string
	Subject string
	Email   string // verified by the provider; the caller refuses an unverified one
	Name    string
	Role    string
	// LinkByEmail lets the first sign-in of this identity take over an existing account with the
	// same email that has no identity at this issuer yet. Off, such a sign-in is refused.
	LinkByEmail bool
}

// ErrIdentityUnlinked is a first sign-in from a provider whose email already belongs to an
// account that this identity may not take.
var ErrIdentityUnlinked = errors.New("an account with this email exists and is not linked to this identity")

// SignInWithOIDC finds the account of a provider's identity by (issuer, subject), creating it on
// the first sign-in, and sets its role to in.Role: the provider's groups decide the role at every
// sign-in, so a group taken away there takes the role away here.
func (s *Store) SignInWithOIDC(ctx context.Context, in OIDCSignIn) (*User, error) {
	if RoleRank(in.Role) == 0 {
		return nil, fmt.Errorf("role %q: %w", in.Role, ErrNotFound)
	}
	email := NormalizeEmail(in.Email)
	var user User
	err := s.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		now := time.Now().UTC()
		var ident OIDCIdentity
		err := tx.Where("issuer = ? AND subject = ?", in.Issuer, in.Subject).First(&ident).Error
		switch {
		case err == nil:
			if err := tx.First(&user, ident.UserID).Error; err != nil {
				return err
			}
			if err := tx.Model(&ident).Update("last_sign_in_at", now).Error; err != nil {
				return err
			}
		case errors.Is(err, gorm.ErrRecordNotFound):
			err := tx.Where("email = ?", email).First(&user).Error
			switch {
			case err == nil:
				if !in.LinkByEmail {
					return ErrIdentityUnlinked
				}
				var taken int64
				if err := tx.Model(&OIDCIdentity{}).Where("user_id = ? AND issuer = ?", user.ID, in.Issuer).Count(&taken).Error; err != nil {
					return err
				}
				if taken > 0 {
					// Another subject at this provider owns the account: an email moving between
					// people there must not move the account with it.
					return ErrIdentityUnlinked
				}
			case errors.Is(err, gorm.ErrRecordNotFound):
				// An account made here has no password: its hash matches none.
				user = User{Email: email, Name: strings.TrimSpace(in.Name), Role: in.Role, SessionEpoch: 1}
				if err := tx.Create(&user).Error; err != nil {
					return err
				}
			default:
				return err
			}
			ident = OIDCIdentity{UserID: user.ID, Issuer: in.Issuer, Subject: in.Subject, CreatedAt: now, LastSignInAt: now}
			if err := tx.Create(&ident).Error; err != nil {
				return err
			}
		default:
			return err
		}
		if user.DisabledAt != nil {
			return ErrAccountDisabled
		}
		if user.Role != in.Role {
			user.Role, user.UpdatedAt = in.Role, now
			return tx.Model(&User{}).Where("id = ?", user.ID).Updates(map[string]any{"role": in.Role, "updated_at": now}).Error
		}
		return nil
	})
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		err = ErrConflict // two first sign-ins at once: the other one made the account
	}
	if err != nil {
		return nil, fmt.Errorf("oidc sign-in %s at %s: %w", in.Subject, in.Issuer, err)
	}
	return &user, nil
}
