package models_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
)

// TestSignInWithOIDC: an identity is found by (issuer, subject), not by email; its first sign-in
// makes an account without a password; an existing account with the same email is taken only
// when linking is allowed, and never from another subject at the same issuer; the role follows
// the mapping at every sign-in; a disabled account is refused.
func TestSignInWithOIDC(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		const iss = "https://id.example.com"
		alice, err := s.SignInWithOIDC(ctx, models.OIDCSignIn{Issuer: iss, Subject: "a1", Email: "Alice@Example.com", Name: "Alice", Role: models.RoleAdmin})
		if err != nil {
			t.Fatal(err)
		}
		if alice.Email != "alice@example.com" || alice.Role != models.RoleAdmin {
			t.Errorf("first sign-in made %+v", alice)
		}
		if _, err := s.Authenticate(ctx, "alice@example.com", ""); !errors.Is(err, models.ErrBadCredentials) {
			t.Errorf("an account made by the provider signs in with an empty password: %v", err)
		}
		again, err := s.SignInWithOIDC(ctx, models.OIDCSignIn{Issuer: iss, Subject: "a1", Email: "alice@example.com", Role: models.RoleViewer})
		if err != nil || again.ID != alice.ID || again.Role != models.RoleViewer {
			t.Errorf("second sign-in: %+v, %v; want the same account demoted to viewer", again, err)
		}
		if u, _ := s.UserByID(ctx, alice.ID); u.Role != models.RoleViewer {
			t.Errorf("stored role %q, want viewer", u.Role)
		}
		// Another subject claiming Alice's email does not get her account, linking or not.
		for _, link := range []bool{false, true} {
			if _, err := s.SignInWithOIDC(ctx, models.OIDCSignIn{Issuer: iss, Subject: "mallory", Email: "alice@example.com", Role: models.RoleAdmin, LinkByEmail: link}); !errors.Is(err, models.ErrIdentityUnlinked) {
				t.Errorf("link=%v: another subject with alice's email: %v, want ErrIdentityUnlinked", link, err)
			}
		}
		// A password account is not taken over unless linking is allowed.
		bob, err := s.CreateUser(ctx, models.UserInput{Email: "bob@example.com", Role: models.RoleResponder, Password: "a long enough password"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.SignInWithOIDC(ctx, models.OIDCSignIn{Issuer: iss, Subject: "b1", Email: "bob@example.com", Role: models.RoleViewer}); !errors.Is(err, models.ErrIdentityUnlinked) {
			t.Errorf("password account taken without linking: %v", err)
		}
		linked, err := s.SignInWithOIDC(ctx, models.OIDCSignIn{Issuer: iss, Subject: "b1", Email: "bob@example.com", Role: models.RoleViewer, LinkByEmail: true})
		if err != nil || linked.ID != bob.ID {
			t.Errorf("linking: %+v, %v; want bob's account", linked, err)
		}
		// Disabled: no sign-in either way, its token revoked, its sessions' epoch moved on.
		_, _, _ = s.CreateToken(ctx, bob.ID, "ci")
		secret, _, _ := s.CreateToken(ctx, bob.ID, "pager")
		revoked, err := s.DisableUser(ctx, bob.ID)
		if err != nil || revoked != 2 {
			t.Errorf("DisableUser: revoked %d, %v; want 2", revoked, err)
		}
		if _, err := s.UserByToken(ctx, secret); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("a disabled account's token still works: %v", err)
		}
		if u, _ := s.UserByID(ctx, bob.ID); u.DisabledAt == nil || u.SessionEpoch == bob.SessionEpoch {
			t.Errorf("after DisableUser: %+v", u)
		}
		if _, err := s.Authenticate(ctx, "bob@example.com", "a long enough password"); !errors.Is(err, models.ErrAccountDisabled) {
			t.Errorf("disabled account signs in with its password: %v", err)
		}
		if _, err := s.SignInWithOIDC(ctx, models.OIDCSignIn{Issuer: iss, Subject: "b1", Email: "bob@example.com", Role: models.RoleViewer}); !errors.Is(err, models.ErrAccountDisabled) {
			t.Errorf("disabled account signs in at the provider: %v", err)
		}
		if _, err := s.DisableUser(ctx, 987654); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("disabling a missing account: %v", err)
		}
	})
}

// TestSignInWithOIDCAtOnce: first sign-ins of the same new subject at once all succeed, with one
// account between them. Several rounds, so that the later ones find the connection pool warm and
// really run at once.
func TestSignInWithOIDCAtOnce(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		const at, rounds = 8, 6
		for round := range rounds {
			subject, email := fmt.Sprintf("new-%d", round), fmt.Sprintf("new-%d@example.com", round)
			var wg sync.WaitGroup
			ids := make([]int64, at)
			errs := make([]error, at)
			start := make(chan struct{})
			for n := range at {
				wg.Go(func() {
					<-start
					u, err := s.SignInWithOIDC(ctx, models.OIDCSignIn{Issuer: "https://id.example.com", Subject: subject, Email: email, Role: models.RoleViewer})
					errs[n] = err
					if u != nil {
						ids[n] = u.ID
					}
				})
			}
			close(start)
			wg.Wait()
			for n := range at {
				if errs[n] != nil || ids[n] != ids[0] || ids[n] == 0 {
					t.Errorf("round %d, sign-in %d: account %d, %v; want account %d", round, n, ids[n], errs[n], ids[0])
				}
			}
		}
		if n, err := s.CountUsers(ctx); err != nil || n != rounds {
			t.Errorf("%d accounts, %v; want %d", n, err, rounds)
		}
	})
}

// TestOIDCRecheckStore: the identities due for a re-check are those with a refresh token, last
// vouched for before the instant, of enabled accounts; a refusal ends the account's sessions
// (its epoch moves), forgets the token and is recorded; disabling and enabling are recorded too.
func TestOIDCRecheckStore(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		const iss = "https://id.example.com"
		sign := func(sub, token string) *models.User {
			u, err := s.SignInWithOIDC(ctx, models.OIDCSignIn{Issuer: iss, Subject: sub, Email: sub + "@example.com", Role: models.RoleViewer, RefreshToken: token})
			if err != nil {
				t.Fatal(err)
			}
			return u
		}
		a, b := sign("a", "sealed-a"), sign("b", "sealed-b")
		sign("c", "") // no refresh token: cannot be asked
		later := time.Now().Add(time.Hour)
		due, err := s.IdentitiesToRecheck(ctx, iss, later, 10)
		if err != nil || len(due) != 2 || due[0].RefreshToken == "" {
			t.Fatalf("due: %+v, %v; want a and b", due, err)
		}
		if due, _ := s.IdentitiesToRecheck(ctx, "https://other.example.com", later, 10); len(due) != 0 {
			t.Errorf("another issuer's identities are due: %+v", due)
		}
		if _, err := s.DisableUser(ctx, b.ID); err != nil {
			t.Fatal(err)
		}
		due, err = s.IdentitiesToRecheck(ctx, iss, later, 10)
		if err != nil || len(due) != 1 || due[0].UserID != a.ID {
			t.Fatalf("due after disabling b: %+v, %v; want a alone", due, err)
		}
		if err := s.IdentityVouched(ctx, due[0].ID, "rotated-a"); err != nil {
			t.Fatal(err)
		}
		if again, _ := s.IdentitiesToRecheck(ctx, iss, time.Now().Add(-time.Minute), 10); len(again) != 0 {
			t.Errorf("a vouched identity is due again at once: %+v", again)
		}
		due, _ = s.IdentitiesToRecheck(ctx, iss, later, 10)
		if len(due) != 1 || due[0].RefreshToken != "rotated-a" {
			t.Fatalf("after rotation: %+v", due)
		}
		if err := s.IdentityRefused(ctx, due[0].ID, "refused"); err != nil {
			t.Fatal(err)
		}
		after, err := s.UserByID(ctx, a.ID)
		if err != nil || after.SessionEpoch != a.SessionEpoch+1 || after.DisabledAt != nil {
			t.Errorf("a after the refusal: %+v, %v; want its epoch moved, still enabled", after, err)
		}
		if due, _ := s.IdentitiesToRecheck(ctx, iss, later, 10); len(due) != 0 {
			t.Errorf("a refused identity is due again: %+v", due)
		}
		if err := s.IdentityRefused(ctx, 999999, "refused"); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("refusing an unknown identity: %v", err)
		}
		if err := s.EnableUser(ctx, b.ID); err != nil {
			t.Fatal(err)
		}
		if err := s.EnableUser(ctx, b.ID); err != nil {
			t.Fatalf("enabling twice: %v", err)
		}
		if err := s.EnableUser(ctx, 999999); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("enabling an unknown account: %v", err)
		}
		for id, want := range map[int64]int{a.ID: 1, b.ID: 2} {
			if h, err := s.UserHistory(ctx, id); err != nil || len(h) != want {
				t.Errorf("history of %d: %+v, %v; want %d entries", id, h, err, want)
			}
		}
	})
}

// TestSaveSignInSettings: saved settings are read back normalised; an empty secret keeps the
// saved one; bad ones are refused field by field, saving nothing.
func TestSaveSignInSettings(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		if _, saved, err := s.SignInSettings(ctx); err != nil || saved {
			t.Fatalf("fresh: saved %v, %v", saved, err)
		}
		in := models.SignInSettings{Issuer: " https://id.example.com ", ClientID: "hs", ClientSecret: "s3cret", Name: "SSO",
			AdminGroups: " ops,, sre ", DefaultRole: "", PasswordSignIn: "break-glass", BreakGlass: "Root@Example.com, ops@example.com"}
		if err := s.SaveSignInSettings(ctx, in); err != nil {
			t.Fatal(err)
		}
		in.ClientSecret = ""
		in.Name = "Company SSO"
		if err := s.SaveSignInSettings(ctx, in); err != nil {
			t.Fatal(err)
		}
		got, saved, err := s.SignInSettings(ctx)
		if err != nil || !saved || got.Issuer != "https://id.example.com" || got.ClientSecret != "s3cret" || got.AdminGroups != "ops, sre" ||
			got.DefaultRole != models.RoleViewer || got.BreakGlass != "root@example.com, ops@example.com" || got.Name != "Company SSO" {
			t.Errorf("read back %+v, %v, %v", got, saved, err)
		}
		bad := models.SignInSettings{Issuer: "ftp://x", DefaultRole: "owner", PasswordSignIn: "none", BreakGlass: "nope"}
		err = s.SaveSignInSettings(ctx, bad)
		var errs models.FieldErrors
		if !errors.As(err, &errs) {
			t.Fatalf("bad settings: %v", err)
		}
		for _, field := range []string{"issuer", "client_id", "default_role", "password_signin", "break_glass"} {
			if errs.For(field) == "" {
				t.Errorf("no message for %s: %+v", field, errs)
			}
		}
		if again, _, _ := s.SignInSettings(ctx); again != got {
			t.Errorf("a refused save changed the settings: %+v", again)
		}
	})
}
