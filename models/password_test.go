package models_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"hindsight/models"
	"hindsight/models/storetest"
)

// TestPasswordHashes: new hashes count every byte of a long passphrase and say which scheme made
// them; a plain bcrypt hash from before still verifies.
func TestPasswordHashes(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		long := strings.Repeat("a long passphrase ", 10)[:150]
		u, err := s.CreateUser(ctx, models.UserInput{Email: "long@example.com", Role: models.RoleViewer, Password: long})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(u.PasswordHash, "hmac-sha256+bcrypt:$2a$") {
			t.Errorf("new hash %q does not name its scheme", u.PasswordHash)
		}
		if _, err := s.Authenticate(ctx, "long@example.com", long); err != nil {
			t.Errorf("150-byte password: %v", err)
		}
		for _, wrong := range []string{long[:72], long[:149], long + "x"} {
			if _, err := s.Authenticate(ctx, "long@example.com", wrong); !errors.Is(err, models.ErrBadCredentials) {
				t.Errorf("%d bytes of it: %v, want bad credentials", len(wrong), err)
			}
		}

		legacy, err := bcrypt.GenerateFromPassword([]byte("an old password of 2025"), bcrypt.DefaultCost)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.StorePasswordHash(ctx, u.ID, string(legacy)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Authenticate(ctx, "long@example.com", "an old password of 2025"); err != nil {
			t.Errorf("plain bcrypt hash from before: %v", err)
		}
		if _, err := s.Authenticate(ctx, "long@example.com", "an old password of 2024"); !errors.Is(err, models.ErrBadCredentials) {
			t.Errorf("wrong password against a plain bcrypt hash: %v", err)
		}
		// bcrypt reads 72 bytes: a password that only starts like the old one is not it.
		old72 := strings.Repeat("z", 72)
		legacy, _ = bcrypt.GenerateFromPassword([]byte(old72), bcrypt.DefaultCost)
		if err := s.StorePasswordHash(ctx, u.ID, string(legacy)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Authenticate(ctx, "long@example.com", old72); err != nil {
			t.Errorf("72-byte password against its plain bcrypt hash: %v", err)
		}
		if _, err := s.Authenticate(ctx, "long@example.com", old72+"more"); !errors.Is(err, models.ErrBadCredentials) {
			t.Errorf("76 bytes against a plain bcrypt hash of their first 72: %v", err)
		}

		if _, err := s.SetPassword(ctx, u.ID, strings.Repeat("x", models.PasswordMax+1), models.KeepTokens); !errors.Is(err, models.ErrPasswordTooLong) {
			t.Errorf("setting %d bytes: %v", models.PasswordMax+1, err)
		}
		if _, err := s.SetPassword(ctx, u.ID, strings.Repeat("é", models.PasswordMax/2), models.KeepTokens); err != nil {
			t.Errorf("setting %d bytes: %v", models.PasswordMax, err)
		}
	})
}

func TestPasswordProblem(t *testing.T) {
	for _, tc := range []struct {
		password, want string
	}{
		{"", "This field is required."},
		{"short", "Must be at least 12 characters."},
		{"ééééééééééé", "Must be at least 12 characters."}, // 22 bytes, 11 characters
		{"éééééééééééé", ""},
		{strings.Repeat("x", models.PasswordMax), ""},
		{strings.Repeat("x", models.PasswordMax+1), "Must be at most 1024 bytes."},
		{strings.Repeat("é", 600), "Must be at most 1024 bytes."}, // 600 characters, 1,200 bytes
	} {
		if got := models.PasswordProblem(tc.password); got != tc.want {
			t.Errorf("PasswordProblem(%d bytes) = %q, want %q", len(tc.password), got, tc.want)
		}
	}
}
