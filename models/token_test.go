package models_test

import (
	"context"
	"errors"
	"testing"

	"hindsight/models"
	"hindsight/models/storetest"
)

// TestSetPasswordRevokesTokens: a new password revokes the user's live tokens, and only theirs,
// unless told to keep them; the use of a token is written once a minute at most.
func TestSetPasswordRevokesTokens(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		var users [2]*models.User
		for n, email := range []string{"ops@example.com", "other@example.com"} {
			u, err := s.CreateUser(ctx, models.UserInput{Email: email, Role: models.RoleViewer, Password: "a long enough password"})
			if err != nil {
				t.Fatal(err)
			}
			users[n] = u
		}
		ci, _, _ := s.CreateToken(ctx, users[0].ID, "ci")
		pager, _, _ := s.CreateToken(ctx, users[0].ID, "pager")
		_, old, _ := s.CreateToken(ctx, users[0].ID, "old")
		theirs, _, _ := s.CreateToken(ctx, users[1].ID, "theirs")
		if err := s.RevokeToken(ctx, users[0].ID, old.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.UserByToken(ctx, ci); err != nil {
			t.Fatal(err)
		}
		before, _ := s.ListTokens(ctx, users[0].ID)
		if _, err := s.UserByToken(ctx, ci); err != nil {
			t.Fatal(err)
		}
		after, _ := s.ListTokens(ctx, users[0].ID)
		if before[2].LastUsedAt == nil || !after[2].LastUsedAt.Equal(*before[2].LastUsedAt) {
			t.Errorf("last use %v, then %v: want one write within a minute", before[2].LastUsedAt, after[2].LastUsedAt)
		}

		set, err := s.SetPassword(ctx, users[0].ID, "the first new password", models.KeepTokens)
		if err != nil || set.RevokedTokens != 0 || set.Epoch != 2 {
			t.Errorf("keeping tokens: %+v, %v", set, err)
		}
		if _, err := s.UserByToken(ctx, ci); err != nil {
			t.Errorf("kept token: %v", err)
		}
		set, err = s.SetPassword(ctx, users[0].ID, "the second new password", models.RevokeTokens)
		if err != nil || set.RevokedTokens != 2 || set.Epoch != 3 {
			t.Errorf("revoking tokens: %+v, %v", set, err)
		}
		for _, secret := range []string{ci, pager} {
			if _, err := s.UserByToken(ctx, secret); !errors.Is(err, models.ErrNotFound) {
				t.Errorf("token after the reset: %v, want not found", err)
			}
		}
		if u, err := s.UserByToken(ctx, theirs); err != nil || u.ID != users[1].ID {
			t.Errorf("another user's token after the reset: %v, %v", u, err)
		}
		if _, err := s.SetPassword(ctx, 999, "a long enough password", models.RevokeTokens); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("unknown user: %v", err)
		}
	})
}
