package notify_test

import (
	"context"
	"io"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/notify"
	"hindsight/models/notify/smtptest"
	"hindsight/models/storetest"
)

var tokenLink = regexp.MustCompile(`/status/subscriptions/([A-Za-z0-9_-]+)/confirm`)
var unsubscribeLink = regexp.MustCompile(`https?://\S+/status/unsubscribe/([A-Za-z0-9_-]+)`)

// startWorker runs an outbox worker sending through the SMTP server at addr until the test ends.
func startWorker(t *testing.T, s *models.Store, addr string) (stop func()) {
	t.Helper()
	return startWorkerWith(t, s, addr, true)
}

func startWorkerWith(t *testing.T, s *models.Store, addr string, allowPrivate bool) (stop func()) {
	t.Helper()
	mailer, err := notify.ParseSMTPURL("smtp://" + addr)
	if err != nil {
		t.Fatal(err)
	}
	mailer.Timeout = 5 * time.Second
	w := notify.NewWorker(s, slog.New(slog.NewTextHandler(io.Discard, nil)), notify.Config{
		Mailer: mailer, From: "Status <status@example.com>", BaseURL: "https://status.example.com",
		Webhooks: notify.NewWebhooks(5*time.Second, allowPrivate), Backoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond,
		MaxAttempts: 100000,
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx) }()
	stop = func() { cancel(); <-done }
	t.Cleanup(stop)
	return stop
}

// settled waits until no delivery waits: every one sent or given up.
func settled(t *testing.T, s *models.Store) []models.DeliveryState {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		ds, err := s.Deliveries(ctx)
		if err != nil {
			t.Fatal(err)
		}
		waiting := 0
		for _, d := range ds {
			if d.SentAt == nil && d.FailedAt == nil {
				waiting++
			}
		}
		if waiting == 0 {
			return ds
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%d deliveries still waiting: %+v", waiting, ds)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func publicIncident(t *testing.T, s *models.Store, services ...string) *models.Incident {
	t.Helper()
	started := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	inc, err := s.CreateIncident(context.Background(), models.IncidentInput{
		Title: "Checkout errors", Summary: "Payments failed for some customers.", Severity: "sev2", Status: "investigating",
		TimeZone: "UTC", PostmortemState: "draft", Public: true, Services: services,
		Milestones: models.Milestones{StartedAt: &started},
	}, models.Children{})
	if err != nil {
		t.Fatal(err)
	}
	return inc
}

func to(m smtptest.Message) string { return m.Header.Get("To") }

// TestSubscribersHearOncePerPublicUpdateAndPublish sends through a real SMTP server (aiosmtpd)
// and reads what arrived: the confirmation, one message per public update and one per
// publication, each with its unsubscribe link and one-click headers, and nothing for internal
// entries, edits, a second publication or a component the subscriber did not choose.
func TestSubscribersHearOncePerPublicUpdateAndPublish(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		smtp := smtptest.Start(t, "")
		startWorker(t, s, smtp.Addr)
		inc := publicIncident(t, s, "Checkout")

		for _, in := range []models.SubscribeInput{
			{Email: "all@example.com", IP: "192.0.2.1"},
			{Email: "db@example.com", Components: []string{"Database"}, IP: "192.0.2.1"},
		} {
			if err := s.Subscribe(ctx, in); err != nil {
				t.Fatal(err)
			}
		}
		settled(t, s)
		msgs := smtp.Messages(t)
		if len(msgs) != 2 {
			t.Fatalf("want 2 confirmation messages, got %d; deliveries %+v", len(msgs), settled(t, s))
		}
		tokens := map[string]string{}
		for _, m := range msgs {
			if got := m.Header.Get("Subject"); got != "Status: confirm your subscription" {
				t.Errorf("confirmation subject %q", got)
			}
			match := tokenLink.FindStringSubmatch(m.Body)
			if match == nil {
				t.Fatalf("no confirm link in %q", m.Body)
			}
			tokens[to(m)] = match[1]
		}
		// Nothing goes to an unconfirmed address.
		if _, err := s.CreateEvent(ctx, inc.ID, models.EventInput{At: time.Now().UTC(), Kind: "status_update", Status: "investigating", Body: "Looking into it.", Public: true}); err != nil {
			t.Fatal(err)
		}
		settled(t, s)
		if n := len(smtp.Messages(t)); n != 2 {
			t.Fatalf("an unconfirmed subscriber was sent an update: %d messages", n)
		}
		for _, addr := range []string{"all@example.com", "db@example.com"} {
			if err := s.ConfirmSubscriber(ctx, tokens[addr]); err != nil {
				t.Fatal(err)
			}
		}

		// A public update: one message, to the subscriber of all components only.
		if _, err := s.CreateEvent(ctx, inc.ID, models.EventInput{At: time.Now().UTC(), Kind: "status_update", Status: "identified", Body: "A bad deploy; rolling back.", Public: true}); err != nil {
			t.Fatal(err)
		}
		settled(t, s)
		msgs = smtp.Messages(t)
		if len(msgs) != 3 {
			t.Fatalf("want 1 message for the update, got %d", len(msgs)-2)
		}
		update := msgs[2]
		if to(update) != "all@example.com" {
			t.Errorf("the update went to %q", to(update))
		}
		if got, want := update.Header.Get("Subject"), "[Status] Checkout errors: Identified"; got != want {
			t.Errorf("subject %q, want %q", got, want)
		}
		if !strings.Contains(update.Body, "A bad deploy; rolling back.") || !strings.Contains(update.Body, "https://status.example.com/status/incidents/") {
			t.Errorf("update body lacks its text or link: %q", update.Body)
		}
		if got := update.Header.Get("List-Unsubscribe-Post"); got != "List-Unsubscribe=One-Click" {
			t.Errorf("List-Unsubscribe-Post %q", got)
		}
		header := update.Header.Get("List-Unsubscribe")
		want := "<https://status.example.com/status/unsubscribe/" + tokens["all@example.com"] + ">"
		if header != want {
			t.Errorf("List-Unsubscribe %q, want %q", header, want)
		}
		if m := unsubscribeLink.FindStringSubmatch(update.Body); m == nil || m[1] != tokens["all@example.com"] {
			t.Errorf("no unsubscribe link in the body: %q", update.Body)
		}

		// An internal entry sends nothing; making it public sends one; editing it again, nothing.
		ev, err := s.CreateEvent(ctx, inc.ID, models.EventInput{At: time.Now().UTC(), Kind: "action", Body: "Rolled back build 41.", Public: false})
		if err != nil {
			t.Fatal(err)
		}
		settled(t, s)
		if n := len(smtp.Messages(t)); n != 3 {
			t.Fatalf("an internal entry was sent: %d messages", n)
		}
		for _, body := range []string{"Rolled back build 41.", "Rolled back build 41 at 10:02."} {
			if err := s.UpdateEvent(ctx, inc.ID, ev.ID, models.EventInput{At: ev.At, Kind: "action", Body: body, Public: true}); err != nil {
				t.Fatal(err)
			}
		}
		settled(t, s)
		if n := len(smtp.Messages(t)); n != 4 {
			t.Fatalf("want one message for the entry made public, then none for its edit: %d in all", n)
		}

		// Publishing the postmortem sends one; editing and publishing it again send none.
		current, err := s.GetIncident(ctx, inc.ID)
		if err != nil {
			t.Fatal(err)
		}
		version, err := s.SetPostmortemState(ctx, inc.ID, current.Version, models.PostmortemPublished)
		if err != nil {
			t.Fatal(err)
		}
		settled(t, s)
		msgs = smtp.Messages(t)
		if len(msgs) != 5 || msgs[4].Header.Get("Subject") != "[Status] Postmortem: Checkout errors" {
			t.Fatalf("want one postmortem message, got %d messages, last %q", len(msgs), msgs[len(msgs)-1].Header.Get("Subject"))
		}
		edited := models.IncidentInput{
			Title: "Checkout errors", Summary: "Payments failed for 4% of customers.", Severity: "sev2", Status: "resolved",
			TimeZone: "UTC", PostmortemState: models.PostmortemPublished, Public: true, Services: []string{"Checkout"},
			Milestones: current.Milestones(),
		}
		updated, err := s.UpdateIncident(ctx, inc.ID, version, edited, models.Children{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.SetPostmortemState(ctx, inc.ID, updated.Version, models.PostmortemPublished); err != nil {
			t.Fatal(err)
		}
		settled(t, s)
		if n := len(smtp.Messages(t)); n != 5 {
			t.Fatalf("editing or republishing a published postmortem sent again: %d messages", n)
		}

		// Unsubscribed, an address hears nothing more, and nothing of it is kept.
		if err := s.Unsubscribe(ctx, tokens["all@example.com"]); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateEvent(ctx, inc.ID, models.EventInput{At: time.Now().UTC(), Kind: "status_update", Status: "resolved", Body: "Fixed.", Public: true}); err != nil {
			t.Fatal(err)
		}
		settled(t, s)
		if n := len(smtp.Messages(t)); n != 5 {
			t.Fatalf("an unsubscribed address was sent an update: %d messages", n)
		}
		counts, err := s.SubscriberCounts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if counts.Email != 1 || counts.Pending != 0 {
			t.Errorf("counts %+v, want 1 confirmed", counts)
		}
	})
}
