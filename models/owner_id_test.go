package models_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
)

// TestMineFollowsTheAccount: "Mine" and an owner's calendar choose an account's follow-ups by
// its id (follow_ups.owner_id), and by text only those whose owner has no account: one typed
// before the account existed counts, another account's does not, and the counts agree with the
// list, on both databases.
func TestMineFollowsTheAccount(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		inc, err := s.CreateIncident(ctx, seed000(t), models.Children{})
		if err != nil {
			t.Fatal(err)
		}
		add := func(title, owner string) *models.FollowUp {
			t.Helper()
			f, err := s.CreateFollowUp(ctx, inc.ID, models.FollowUpInput{Title: title, Kind: "prevent", Priority: "p2", Status: "open", Owner: owner})
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
		add("Typed before the account", "Ann Lee")
		ann, err := s.CreateUser(ctx, models.UserInput{Email: "ann@example.com", Name: "Ann Lee", Role: "responder", Password: "correct horse battery"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateUser(ctx, models.UserInput{Email: "bob@example.com", Name: "Bob", Role: "responder", Password: "correct horse battery"}); err != nil {
			t.Fatal(err)
		}
		byName := add("Picked by name", "ann lee")
		if byName.OwnerID == nil || *byName.OwnerID != ann.ID {
			t.Fatalf("owner typed as the account's name: owner_id %v", byName.OwnerID)
		}
		add("Bob's", "bob@example.com")
		add("Someone without an account", "Carol")

		titles := func(f models.FollowUpFilter) ([]string, int64) {
			t.Helper()
			f.Now = time.Now()
			list, counts, err := s.ListFollowUps(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, fu := range list {
				out = append(out, fu.Title)
			}
			slices.Sort(out)
			return out, counts.Total
		}
		mine, total := titles(models.FollowUpFilter{OwnerID: ann.ID, OwnerNames: []string{ann.Email, ann.Name}})
		if want := []string{"Picked by name", "Typed before the account"}; !slices.Equal(mine, want) || total != 2 {
			t.Errorf("Ann's follow-ups = %v (counted %d), want %v", mine, total, want)
		}
		calendar, err := s.OwnerFilter(ctx, "ANN@example.com")
		if err != nil {
			t.Fatal(err)
		}
		if calendar.OwnerID != ann.ID {
			t.Fatalf("the calendar of ann@example.com = %+v, want her account", calendar)
		}
		if got, _ := titles(calendar); len(got) != 2 {
			t.Errorf("Ann's calendar = %v", got)
		}
		carol, err := s.OwnerFilter(ctx, "Carol")
		if err != nil {
			t.Fatal(err)
		}
		if got, total := titles(carol); carol.OwnerID != 0 || !slices.Equal(got, []string{"Someone without an account"}) || total != 1 {
			t.Errorf("a name without an account: %+v chose %v", carol, got)
		}
	})
}
