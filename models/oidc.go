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
	// RefreshToken is the provider's refresh token of the last sign-in, sealed by the caller
	// (never shown anywhere); empty when the provider issued none.
	RefreshToken string `json:"-"`
	// CheckedAt is when the provider last vouched for the identity: a sign-in or a re-check.
	CheckedAt *time.Time
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
	// RefreshToken, sealed, replaces the identity's stored one when not empty.
	RefreshToken string
}

// ErrIdentityUnlinked is a first sign-in from a provider whose email already belongs to an
// account that this identity may not take.
var ErrIdentityUnlinked = errors.New("an account with this email exists and is not linked to this identity")

// errSignInRaced is a first sign-in that found the account another sign-in of the same identity
// made while it looked; it starts again.
var errSignInRaced = errors.New("another sign-in of this identity made the account meanwhile")

// SignInWithOIDC finds the account of a provider's identity by (issuer, subject), creating it on
// the first sign-in, and sets its role to in.Role: the provider's groups decide the role at every
// sign-in, so a group taken away there takes the role away here.
//
// Two first sign-ins of the same new subject at once (two tabs, a double click) both find no
// identity; the second one's insert then collides with the first's, or it finds the first one's
// account by email, and it starts again, finding the account the first one made.
func (s *Store) SignInWithOIDC(ctx context.Context, in OIDCSignIn) (*User, error) {
	if RoleRank(in.Role) == 0 {
		return nil, fmt.Errorf("role %q: %w", in.Role, ErrNotFound)
	}
	var (
		user *User
		err  error
	)
	for range 3 {
		user, err = s.signInWithOIDC(ctx, in)
		if !errors.Is(err, gorm.ErrDuplicatedKey) && !errors.Is(err, errSignInRaced) {
			break
		}
	}
	if errors.Is(err, gorm.ErrDuplicatedKey) || errors.Is(err, errSignInRaced) {
		err = ErrConflict
	}
	if err != nil {
		return nil, fmt.Errorf("oidc sign-in %s at %s: %w", in.Subject, in.Issuer, err)
	}
	return user, nil
}

func (s *Store) signInWithOIDC(ctx context.Context, in OIDCSignIn) (*User, error) {
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
			seen := map[string]any{"last_sign_in_at": now, "checked_at": now}
			if in.RefreshToken != "" {
				seen["refresh_token"] = in.RefreshToken
			}
			if err := tx.Model(&OIDCIdentity{}).Where("id = ?", ident.ID).Updates(seen).Error; err != nil {
				return err
			}
		case errors.Is(err, gorm.ErrRecordNotFound):
			err := tx.Where("email = ?", email).First(&user).Error
			switch {
			case err == nil:
				var ours int64
				if err := tx.Model(&OIDCIdentity{}).Where("issuer = ? AND subject = ?", in.Issuer, in.Subject).Count(&ours).Error; err != nil {
					return err
				}
				if ours > 0 {
					return errSignInRaced // made by a sign-in of the same identity since the look-up above
				}
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
			ident = OIDCIdentity{UserID: user.ID, Issuer: in.Issuer, Subject: in.Subject, CreatedAt: now, LastSignInAt: now,
				RefreshToken: in.RefreshToken, CheckedAt: &now}
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
	if err != nil {
		return nil, err
	}
	return &user, nil
}
