package models

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"
	"gorm.io/gorm"
)

// Roles, weakest first. A role may do everything the ones before it may.
const (
	RoleViewer    = "viewer"    // reads everything internal
	RoleResponder = "responder" // files and edits incidents and their records
	RoleAdmin     = "admin"     // also manages users, the taxonomy, publishing and settings
)

// Roles lists the roles in order.
var Roles = []string{RoleViewer, RoleResponder, RoleAdmin}

// RoleRank orders roles; an unknown role ranks below every real one.
func RoleRank(role string) int {
	for n, r := range Roles {
		if r == role {
			return n + 1
		}
	}
	return 0
}

// Errors of the account rules.
var (
	ErrBadCredentials  = errors.New("email or password is wrong")
	ErrEmailTaken      = errors.New("an account with this email exists")
	ErrPasswordTooLong = errors.New("password longer than PasswordMax bytes")
)

// PasswordMin is the shortest password accepted, in characters; PasswordMax the longest, in
// bytes, which is what hashing one costs. A passphrase of a few dozen words fits.
const (
	PasswordMin = 12
	PasswordMax = 1024
)

// PasswordTooLong is the message beside a password field holding more than PasswordMax bytes.
var PasswordTooLong = fmt.Sprintf("Must be at most %d bytes.", PasswordMax)

// PasswordProblem says what is wrong with a new password, or "" when it may be set.
func PasswordProblem(password string) string {
	switch {
	case password == "":
		return "This field is required."
	case utf8.RuneCountInString(password) < PasswordMin:
		return fmt.Sprintf("Must be at least %d characters.", PasswordMin)
	case len(password) > PasswordMax:
		return PasswordTooLong
	}
	return ""
}

// User is a person who signs in.
type User struct {
	ID           int64
	Email        string
	Name         string
	PasswordHash string `json:"-"`
	Role         string
	SessionEpoch int
	// TimeZone is the account's own zone, which time fields default to; empty until the browser
	// tells it.
	TimeZone string
	// DisabledAt is when an admin disabled the account; a disabled account cannot sign in.
	DisabledAt *time.Time
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// accountColumns selects a users row aliased u as the columns of a User embedded with the
// prefix u_, for a statement that reads an account beside what points at it (a session, a
// token). TestAccountColumnsNameEveryField keeps it whole.
const accountColumns = `u.id AS u_id, u.email AS u_email, u.name AS u_name, u.password_hash AS u_password_hash,
	u.role AS u_role, u.session_epoch AS u_session_epoch, u.time_zone AS u_time_zone, u.disabled_at AS u_disabled_at,
	u.created_at AS u_created_at, u.updated_at AS u_updated_at`

// Can tells whether the user's role reaches the given one.
func (u *User) Can(role string) bool { return u != nil && RoleRank(u.Role) >= RoleRank(role) }

// Label is how history and pages name the user.
func (u *User) Label() string {
	if u.Name != "" {
		return u.Name + " <" + u.Email + ">"
	}
	return u.Email
}

// UserInput is a new account.
type UserInput struct {
	Email    string `json:"email" validate:"required,max=254,email"`
	Name     string `json:"name" validate:"max=200"`
	Role     string `json:"role" validate:"required,oneof=viewer responder admin"`
	Password string `json:"password"` // checked by PasswordProblem, in ValidateUser
}

// ValidateUser checks a new account's fields, the password included.
func ValidateUser(in UserInput) FieldErrors {
	errs := Validate(in)
	if msg := PasswordProblem(in.Password); msg != "" {
		errs.Add("password", msg)
	}
	return errs
}

// NormalizeEmail lowercases and trims an address so one person has one account.
func NormalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// bcryptCost is bcrypt's default: about 50 ms a check on a small server.
const bcryptCost = bcrypt.DefaultCost

// Password hashes. bcrypt reads only the first 72 bytes of what it hashes, and x/crypto refuses
// to hash more, so a new hash is bcrypt over an HMAC-SHA256 of the whole password (44 bytes once
// in base64), marked with prehashedBcrypt. A stored hash without the mark is plain bcrypt of the
// password, from before, and still verifies. The HMAC key is not a secret: it only keeps these
// digests apart from plain SHA-256 ones of the same password found elsewhere.
const (
	prehashedBcrypt = "hmac-sha256+bcrypt:"
	prehashKey      = "hindsight password v2"
	bcryptMaxBytes  = 72
)

func prehash(password string) []byte {
	mac := hmac.New(sha256.New, []byte(prehashKey))
	mac.Write([]byte(password))
	return []byte(base64.StdEncoding.EncodeToString(mac.Sum(nil)))
}

// hashPassword hashes a new password in the current scheme.
func hashPassword(password string) (string, error) {
	if len(password) > PasswordMax {
		return "", fmt.Errorf("hash password of %d bytes: %w", len(password), ErrPasswordTooLong)
	}
	hash, err := bcrypt.GenerateFromPassword(prehash(password), bcryptCost)
	if err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	return prehashedBcrypt + string(hash), nil
}

// passwordMatches checks a password against a stored hash of either scheme, with the same work
// for a match and a mismatch.
func passwordMatches(stored, password string) bool {
	if hash, ok := strings.CutPrefix(stored, prehashedBcrypt); ok {
		return bcrypt.CompareHashAndPassword([]byte(hash), prehash(password)) == nil
	}
	// A plain bcrypt hash was made from at most 72 bytes; bcrypt would ignore what follows them,
	// so a longer password is never the one it was made from.
	same := bcrypt.CompareHashAndPassword([]byte(stored), []byte(password)) == nil
	return same && len(password) <= bcryptMaxBytes
}

// dummyHash is compared against when the email is unknown, so that a wrong email takes as long
// as a wrong password and the response time does not reveal which accounts exist.
var dummyHash, _ = hashPassword("hindsight-no-such-user")

// CountUsers returns how many accounts exist.
func (s *Store) CountUsers(ctx context.Context) (int64, error) {
	var n int64
	if err := s.read.WithContext(ctx).Model(&User{}).Count(&n).Error; err != nil {
		return 0, fmt.Errorf("count users: %w", err)
	}
	return n, nil
}

// CreateUser adds an account. The caller validated the input.
func (s *Store) CreateUser(ctx context.Context, in UserInput) (*User, error) {
	return createUser(s.write.WithContext(ctx), in)
}

func createUser(db *gorm.DB, in UserInput) (*User, error) {
	hash, err := hashPassword(in.Password)
	if err != nil {
		return nil, err
	}
	if _, err := mail.ParseAddress(in.Email); err != nil {
		return nil, fmt.Errorf("email %q: %w", in.Email, err)
	}
	u := User{Email: NormalizeEmail(in.Email), Name: strings.TrimSpace(in.Name), PasswordHash: hash, Role: in.Role, SessionEpoch: 1}
	if err := db.Create(&u).Error; err != nil {
		if errors.Is(err, gorm.ErrDuplicatedKey) {
			return nil, fmt.Errorf("create user %s: %w", u.Email, ErrEmailTaken)
		}
		return nil, fmt.Errorf("create user %s: %w", u.Email, err)
	}
	return &u, nil
}

// CreateFirstAdmin creates the first account, an admin, only while no account exists.
func (s *Store) CreateFirstAdmin(ctx context.Context, in UserInput) (*User, error) {
	var created *User
	err := s.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var n int64
		if err := tx.Model(&User{}).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return ErrConflict
		}
		in.Role = RoleAdmin
		var err error
		created, err = createUser(tx, in)
		return err
	})
	return created, err
}

// SessionUser loads the account a request's session is signed in as: the one read with the
// session (SessionStore.FindCtx), or read now when the session was saved without it.
func (s *Store) SessionUser(ctx context.Context, id int64) (*User, error) {
	if u := sessionUser(ctx, id); u != nil {
		return u, nil
	}
	return s.UserByID(ctx, id)
}

// UserByID loads an account.
func (s *Store) UserByID(ctx context.Context, id int64) (*User, error) {
	var u User
	if err := s.read.WithContext(ctx).First(&u, id).Error; err != nil {
		return nil, notFound(err, fmt.Sprintf("user %d", id))
	}
	return &u, nil
}

// UserByEmail loads an account by its address.
func (s *Store) UserByEmail(ctx context.Context, email string) (*User, error) {
	var u User
	if err := s.read.WithContext(ctx).Where("email = ?", NormalizeEmail(email)).First(&u).Error; err != nil {
		return nil, notFound(err, "user "+email)
	}
	return &u, nil
}

// ListUsers lists every account by email.
func (s *Store) ListUsers(ctx context.Context) ([]User, error) {
	var users []User
	if err := s.read.WithContext(ctx).Order("email").Find(&users).Error; err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	return users, nil
}

// Authenticate checks an email and password. Unknown emails and wrong passwords give the same
// error after the same amount of work.
func (s *Store) Authenticate(ctx context.Context, email, password string) (*User, error) {
	u, err := s.UserByEmail(ctx, email)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			_ = passwordMatches(dummyHash, password)
			return nil, ErrBadCredentials
		}
		return nil, err
	}
	if !passwordMatches(u.PasswordHash, password) {
		return nil, ErrBadCredentials
	}
	if u.DisabledAt != nil {
		return nil, fmt.Errorf("user %d: %w", u.ID, ErrAccountDisabled)
	}
	return u, nil
}

// TokenPolicy says what a new password does to the user's API tokens.
type TokenPolicy int

const (
	// RevokeTokens ends them: a password is reset because it may be known to someone else, who
	// may have made a token with it.
	RevokeTokens TokenPolicy = iota
	// KeepTokens leaves them working, for an operator who knows they are safe.
	KeepTokens
)

// PasswordSet is what setting a password ended besides the old password.
type PasswordSet struct {
	Epoch         int   // the new session epoch, for the session that made the change
	RevokedTokens int64 // how many live API tokens were revoked
}

// SetPassword replaces a user's password and bumps their session epoch, which ends every other
// session they have; unless told to keep them, it revokes their API tokens in the same
// transaction.
func (s *Store) SetPassword(ctx context.Context, userID int64, password string, tokens TokenPolicy) (PasswordSet, error) {
	hash, err := hashPassword(password)
	if err != nil {
		return PasswordSet{}, err
	}
	var set PasswordSet
	err = s.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		now := time.Now().UTC()
		res := tx.Model(&User{}).Where("id = ?", userID).Updates(map[string]any{
			"password_hash": hash, "session_epoch": gorm.Expr("session_epoch + 1"), "updated_at": now,
		})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return fmt.Errorf("user %d: %w", userID, ErrNotFound)
		}
		if tokens == RevokeTokens {
			res := tx.Model(&APIToken{}).Where("user_id = ? AND revoked_at IS NULL", userID).Update("revoked_at", now)
			if res.Error != nil {
				return res.Error
			}
			set.RevokedTokens = res.RowsAffected
		}
		return tx.Model(&User{}).Where("id = ?", userID).Pluck("session_epoch", &set.Epoch).Error
	})
	if err != nil {
		return PasswordSet{}, fmt.Errorf("set password: %w", err)
	}
	return set, nil
}

// SetRole changes a user's role.
func (s *Store) SetRole(ctx context.Context, userID int64, role string) error {
	if RoleRank(role) == 0 {
		return fmt.Errorf("role %q: %w", role, ErrNotFound)
	}
	res := s.write.WithContext(ctx).Model(&User{}).Where("id = ?", userID).Updates(map[string]any{"role": role, "updated_at": time.Now().UTC()})
	if res.Error != nil {
		return fmt.Errorf("set role: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("user %d: %w", userID, ErrNotFound)
	}
	return nil
}

// OwnerAccounts lists the enabled accounts, by name then email, for the follow-up owner field.
func (s *Store) OwnerAccounts(ctx context.Context) ([]User, error) {
	var users []User
	if err := s.read.WithContext(ctx).Select("id", "email", "name").Where("disabled_at IS NULL").
		Order("name, email").Limit(1000).Find(&users).Error; err != nil {
		return nil, fmt.Errorf("list owner accounts: %w", err)
	}
	return users, nil
}

// SetUserTimeZone remembers an account's own time zone; the zone must be a known IANA name.
func (s *Store) SetUserTimeZone(ctx context.Context, userID int64, zone string) error {
	if _, err := time.LoadLocation(zone); err != nil || zone == "" || zone == "Local" {
		return FieldErrors{{Field: "time_zone", Message: "Not a known time zone."}}
	}
	res := s.write.WithContext(ctx).Model(&User{}).Where("id = ?", userID).Update("time_zone", zone)
	if res.Error != nil {
		return fmt.Errorf("set user %d time zone: %w", userID, res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("user %d: %w", userID, ErrNotFound)
	}
	return nil
}
