package notify_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/notify/smtptest"
	"hindsight/models/storetest"
)

// confirmedSubscriber subscribes an address to every component and confirms it with the link of
// the mail that arrives, leaving the count of messages received so far.
func confirmedSubscriber(t *testing.T, s *models.Store, smtp *smtptest.Server, address string) int {
	t.Helper()
	ctx := context.Background()
	if err := s.Subscribe(ctx, models.SubscribeInput{Email: address, IP: "192.0.2.9"}); err != nil {
		t.Fatal(err)
	}
	settled(t, s)
	msgs := smtp.Messages(t)
	match := tokenLink.FindStringSubmatch(msgs[len(msgs)-1].Body)
	if match == nil {
		t.Fatalf("no confirm link in %q", msgs[len(msgs)-1].Body)
	}
	if err := s.ConfirmSubscriber(ctx, match[1]); err != nil {
		t.Fatal(err)
	}
	return len(msgs)
}

// TestEveryPathToPublicMailsOnce goes down each way an update reaches the public, through a real
// SMTP server (aiosmtpd), and reads what arrived: an incident created public with its timeline
// (one message, its latest public entry), a private incident with public entries made public (one
// message), the whole timeline replaced as the API's PUT does with one new public entry (one
// message, that entry) and again unchanged or corrected (none), and a postmortem published as the
// incident is made public (one).
func TestEveryPathToPublicMailsOnce(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		smtp := smtptest.Start(t, "")
		startWorker(t, s, smtp.Addr)
		seen := confirmedSubscriber(t, s, smtp, "all@example.com")
		arrived := func(want int, what string) []smtptest.Message {
			t.Helper()
			settled(t, s)
			msgs := smtp.Messages(t)
			if got := len(msgs) - seen; got != want {
				t.Fatalf("%s: want %d messages, got %d", what, want, got)
			}
			fresh := msgs[seen:]
			seen = len(msgs)
			return fresh
		}
		started := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
		timeline := []models.EventInput{
			{At: started.Add(5 * time.Minute), Kind: "status_update", Status: "investigating", Body: "Looking into it.", Public: true},
			{At: started.Add(10 * time.Minute), Kind: "note", Body: "Internal: build 41?"},
			{At: started.Add(20 * time.Minute), Kind: "status_update", Status: "identified", Body: "A bad deploy.", Public: true},
		}
		input := func(title string, public bool, state string) models.IncidentInput {
			return models.IncidentInput{
				Title: title, Severity: "sev2", Status: "identified", TimeZone: "UTC", PostmortemState: state,
				Public: public, Services: []string{"Checkout"}, Milestones: models.Milestones{StartedAt: &started},
			}
		}

		// Created public with its timeline: one message, about its latest public entry.
		created, err := s.CreateIncident(ctx, input("Created public", true, "draft"), models.Children{Timeline: &timeline})
		if err != nil {
			t.Fatal(err)
		}
		msgs := arrived(1, "an incident created public")
		if !strings.Contains(msgs[0].Body, "A bad deploy.") || strings.Contains(msgs[0].Body, "Internal") {
			t.Errorf("the message is not about the latest public entry: %q", msgs[0].Body)
		}

		// Private with public entries: nothing; made public: one message.
		private, err := s.CreateIncident(ctx, input("Made public", false, "draft"), models.Children{Timeline: &timeline})
		if err != nil {
			t.Fatal(err)
		}
		arrived(0, "a private incident")
		made, err := s.UpdateIncident(ctx, private.ID, private.Version, input("Made public", true, "draft"), models.Children{})
		if err != nil {
			t.Fatal(err)
		}
		if msgs := arrived(1, "an incident made public"); !strings.Contains(msgs[0].Header.Get("Subject"), "Made public") {
			t.Errorf("subject %q", msgs[0].Header.Get("Subject"))
		}
		// Saved again as it is: nothing.
		if _, err := s.UpdateIncident(ctx, made.ID, made.Version, input("Made public", true, "draft"), models.Children{}); err != nil {
			t.Fatal(err)
		}
		arrived(0, "an incident saved again")

		// The whole timeline replaced (the API's PUT) with one new public entry: one message, that
		// entry; replaced again unchanged, or with an entry's text corrected: none.
		current, err := s.GetIncident(ctx, created.ID)
		if err != nil {
			t.Fatal(err)
		}
		longer := append(append([]models.EventInput{}, timeline...),
			models.EventInput{At: started.Add(40 * time.Minute), Kind: "status_update", Status: "monitoring", Body: "Rolled back; watching.", Public: true})
		current, err = s.UpdateIncident(ctx, current.ID, current.Version, input("Created public", true, "draft"), models.Children{Timeline: &longer})
		if err != nil {
			t.Fatal(err)
		}
		if msgs := arrived(1, "the timeline replaced with a new public entry"); !strings.Contains(msgs[0].Body, "Rolled back; watching.") {
			t.Errorf("the message is not about the new entry: %q", msgs[0].Body)
		}
		current, err = s.UpdateIncident(ctx, current.ID, current.Version, input("Created public", true, "draft"), models.Children{Timeline: &longer})
		if err != nil {
			t.Fatal(err)
		}
		corrected := append([]models.EventInput{}, longer...)
		corrected[2].Body = "A bad deploy of build 41."
		current, err = s.UpdateIncident(ctx, current.ID, current.Version, input("Created public", true, "draft"), models.Children{Timeline: &corrected})
		if err != nil {
			t.Fatal(err)
		}
		arrived(0, "the timeline replaced unchanged, then corrected")

		// A private incident whose postmortem is published, made public: its latest update and its
		// postmortem, one message each.
		quiet, err := s.CreateIncident(ctx, input("Published quietly", false, "draft"), models.Children{Timeline: &timeline})
		if err != nil {
			t.Fatal(err)
		}
		version, err := s.SetPostmortemState(ctx, quiet.ID, quiet.Version, models.PostmortemPublished)
		if err != nil {
			t.Fatal(err)
		}
		arrived(0, "a private incident's postmortem published")
		if _, err := s.UpdateIncident(ctx, quiet.ID, version, input("Published quietly", true, models.PostmortemPublished), models.Children{}); err != nil {
			t.Fatal(err)
		}
		msgs = arrived(2, "an incident with a published postmortem made public")
		subjects := msgs[0].Header.Get("Subject") + " | " + msgs[1].Header.Get("Subject")
		if !strings.Contains(subjects, "Postmortem: Published quietly") || !strings.Contains(subjects, "Published quietly: Identified") {
			t.Errorf("subjects %q", subjects)
		}
	})
}
