package models_test

import (
	"context"
	"testing"

	"hindsight/models"
	"hindsight/models/storetest"
)

// The one writer of nested records makes a follow-up's owner the account it names, by email or
// by name in any case, when exactly one account matches, on every path that resolves owners: the
// API's replace and the paste. Other text stays a name.
func TestChildWriterResolvesOwners(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		for _, u := range []models.UserInput{
			{Email: "ada@example.com", Name: "Ada Lovelace", Role: "responder", Password: "correct horse battery"},
			{Email: "sam1@example.com", Name: "Sam", Role: "responder", Password: "correct horse battery"},
			{Email: "sam2@example.com", Name: "Sam", Role: "responder", Password: "correct horse battery"},
		} {
			if _, err := s.CreateUser(ctx, u); err != nil {
				t.Fatal(err)
			}
		}
		in := models.IncidentInput{Title: "Owners", Severity: "sev3", Status: "investigating", TimeZone: "UTC", PostmortemState: "draft"}
		followUps := func(owners ...string) *[]models.FollowUpInput {
			var out []models.FollowUpInput
			for _, o := range owners {
				out = append(out, models.FollowUpInput{Title: "For " + o, Kind: "prevent", Priority: "p2", Status: "open", Owner: o})
			}
			return &out
		}
		inc, err := s.CreateIncident(ctx, in, models.Children{FollowUps: followUps("ada lovelace", " ADA@example.com ")})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.AddChildren(ctx, inc.ID, models.Children{FollowUps: followUps("Sam", "Grace")}); err != nil {
			t.Fatal(err)
		}
		got, err := s.GetIncident(ctx, inc.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]struct {
			owner string
			isID  bool
		}{
			"For ada lovelace": {"ada@example.com", true}, "For  ADA@example.com ": {"ada@example.com", true},
			"For Sam": {"Sam", false}, "For Grace": {"Grace", false},
		}
		if len(got.FollowUps) != len(want) {
			t.Fatalf("%d follow-ups, want %d", len(got.FollowUps), len(want))
		}
		for _, f := range got.FollowUps {
			w := want[f.Title]
			if f.Owner != w.owner || (f.OwnerID != nil) != w.isID {
				t.Errorf("%s: owner %q, id %v; want %q, an account: %v", f.Title, f.Owner, f.OwnerID, w.owner, w.isID)
			}
		}
	})
}
