package models_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"

	"hindsight/models"
	"hindsight/models/storetest"
)

// TestLanguageRulesOff: each user's switched-off rules are kept apart, replaced as a whole, and an
// unknown rule is a field error that changes nothing.
func TestLanguageRulesOff(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		var ids [2]int64
		for n, email := range []string{"ops@example.com", "other@example.com"} {
			u, err := s.CreateUser(ctx, models.UserInput{Email: email, Role: models.RoleViewer, Password: "a long enough password"})
			if err != nil {
				t.Fatal(err)
			}
			ids[n] = u.ID
		}
		offOf := func(id int64) []string {
			off, err := s.LanguageRulesOff(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			return slices.Sorted(maps.Keys(off))
		}
		if got := offOf(ids[0]); len(got) != 0 {
			t.Fatalf("new user has rules off: %v", got)
		}
		if err := s.SetLanguageRulesOff(ctx, ids[0], []string{"blame", "why-question", "blame"}); err != nil {
			t.Fatal(err)
		}
		if got := offOf(ids[0]); !slices.Equal(got, []string{"blame", "why-question"}) {
			t.Errorf("off = %v", got)
		}
		if got := offOf(ids[1]); len(got) != 0 {
			t.Errorf("the other user has rules off: %v", got)
		}
		err := s.SetLanguageRulesOff(ctx, ids[0], []string{"counterfactual", "passive-voice"})
		var fe models.FieldErrors
		if !errors.As(err, &fe) || fe.For("rules") == "" {
			t.Fatalf("unknown rule: err = %v", err)
		}
		if got := offOf(ids[0]); !slices.Equal(got, []string{"blame", "why-question"}) {
			t.Errorf("a refused change changed the rules: %v", got)
		}
		if err := s.SetLanguageRulesOff(ctx, ids[0], nil); err != nil {
			t.Fatal(err)
		}
		if got := offOf(ids[0]); len(got) != 0 {
			t.Errorf("all back on, off = %v", got)
		}
	})
}
