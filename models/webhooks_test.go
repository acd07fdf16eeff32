package models_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
	"hindsight/models/webhooktest"
)

func newEndpoint(t *testing.T, s *models.Store, url string, events ...string) *models.WebhookEndpoint {
	t.Helper()
	if len(events) == 0 {
		events = models.WebhookEvents
	}
	ep, err := s.CreateWebhookEndpoint(context.Background(), models.WebhookEndpointInput{URL: url, Events: events, Format: models.WebhookStandard}, true)
	if err != nil {
		t.Fatal(err)
	}
	return ep
}

func deliveryTypes(t *testing.T, s *models.Store, endpointID int64) []string {
	t.Helper()
	list, err := s.WebhookDeliveries(context.Background(), endpointID, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for n := len(list) - 1; n >= 0; n-- { // oldest first
		types = append(types, list[n].EventType)
	}
	return types
}

// TestWebhookEventsAreQueuedWithTheirWrite: each write the events name queues its event for the
// endpoints that want it, in the write's transaction; a write that fails queues nothing, and a
// switched-off endpoint gets nothing.
func TestWebhookEventsAreQueuedWithTheirWrite(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		all := newEndpoint(t, s, "http://127.0.0.1:9/all")
		created := newEndpoint(t, s, "http://127.0.0.1:9/created", models.EventIncidentCreated)
		off := newEndpoint(t, s, "http://127.0.0.1:9/off")
		if err := s.UpdateWebhookEndpoint(ctx, off.ID, models.WebhookEndpointInput{URL: off.URL, Events: models.WebhookEvents, Format: models.WebhookStandard, Enabled: false}, true); err != nil {
			t.Fatal(err)
		}

		in := seed000(t)
		in.PostmortemState, in.Status = "draft", "investigating"
		inc, err := s.CreateIncident(ctx, in, models.Children{})
		if err != nil {
			t.Fatal(err)
		}
		in.Status = "identified"
		inc, err = s.UpdateIncident(ctx, inc.ID, inc.Version, in, models.Children{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.UpdateIncident(ctx, inc.ID, inc.Version-1, in, models.Children{}); !errors.Is(err, models.ErrConflict) {
			t.Fatalf("stale update: %v", err)
		}
		if _, err := s.CreateEvent(ctx, inc.ID, models.EventInput{At: time.Date(2026, 3, 12, 17, 0, 0, 0, time.UTC), Kind: "note", Body: "Internal: paged the database team"}); err != nil {
			t.Fatal(err)
		}
		f, err := s.CreateFollowUp(ctx, inc.ID, models.FollowUpInput{Title: "Alert on p99 latency", Kind: "detect", Priority: "p1", Status: "open"})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.UpdateFollowUp(ctx, inc.ID, f.ID, f.Version, models.FollowUpInput{Title: "Alert on p99 latency", Kind: "detect", Priority: "p1", Status: "in_progress"}); err != nil {
			t.Fatal(err)
		}
		if n, err := s.SetFollowUpStatus(ctx, []int64{f.ID}, "done"); err != nil || n != 1 {
			t.Fatalf("bulk status: %d, %v", n, err)
		}
		current, err := s.GetIncident(ctx, inc.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.SetPostmortemState(ctx, inc.ID, current.Version, models.PostmortemPublished); err != nil {
			t.Fatal(err)
		}

		want := []string{
			models.EventIncidentCreated, models.EventIncidentUpdated, models.EventIncidentStatusChanged,
			models.EventTimelineCreated, models.EventFollowUpCreated, models.EventFollowUpUpdated,
			models.EventFollowUpUpdated, models.EventPostmortemPublished,
		}
		if got := deliveryTypes(t, s, all.ID); !slices.Equal(got, want) {
			t.Errorf("the endpoint wanting every event got\n %v, want\n %v", got, want)
		}
		if got := deliveryTypes(t, s, created.ID); !slices.Equal(got, []string{models.EventIncidentCreated}) {
			t.Errorf("the endpoint wanting incident.created got %v", got)
		}
		if got := deliveryTypes(t, s, off.ID); len(got) != 0 {
			t.Errorf("a switched-off endpoint got %v", got)
		}

		list, err := s.WebhookDeliveries(ctx, all.ID, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range list {
			var p struct {
				Type string
				Data map[string]any
			}
			if err := json.Unmarshal([]byte(d.Payload), &p); err != nil || p.Type != d.EventType {
				t.Fatalf("payload %s: %v", d.Payload, err)
			}
			if d.EventType == models.EventIncidentStatusChanged && (p.Data["previous_status"] != "investigating" || p.Data["status"] != "identified") {
				t.Errorf("status change carries %v", p.Data)
			}
			if d.EventType == models.EventTimelineCreated && p.Data["body"] != "Internal: paged the database team" {
				t.Errorf("timeline event carries %v", p.Data)
			}
			if !strings.HasPrefix(d.MessageID, "msg_") || d.State != models.DeliveryPending {
				t.Errorf("delivery %+v", d)
			}
		}
	})
}

// TestWebhookDeliveriesAreClaimedOnce: two stores on one database, as two servers, claim due
// deliveries from four workers at once; each delivery is claimed by exactly one.
func TestWebhookDeliveriesAreClaimedOnce(t *testing.T) {
	storetest.EachShared(t, func(t *testing.T, open func() *models.Store) {
		ctx := context.Background()
		first, second := open(), open()
		newEndpoint(t, first, "http://127.0.0.1:9/", models.EventTimelineCreated)
		inc, err := first.CreateIncident(ctx, seed000(t), models.Children{})
		if err != nil {
			t.Fatal(err)
		}
		const n = 40
		for i := range n {
			if _, err := first.CreateEvent(ctx, inc.ID, models.EventInput{At: time.Date(2026, 3, 12, 17, i, 0, 0, time.UTC), Kind: "action", Body: "step"}); err != nil {
				t.Fatal(err)
			}
		}
		var mu sync.Mutex
		seen := map[int64]string{}
		var wg sync.WaitGroup
		now := time.Now()
		for w, store := range []*models.Store{first, second, first, second} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				worker := "worker-" + string(rune('a'+w))
				for {
					claimed, err := store.ClaimWebhookDeliveries(ctx, worker, now, time.Minute, 3)
					if err != nil {
						t.Error(err)
						return
					}
					if len(claimed) == 0 {
						return
					}
					mu.Lock()
					for _, d := range claimed {
						if other, ok := seen[d.ID]; ok {
							t.Errorf("delivery %d claimed by %s and %s", d.ID, other, worker)
						}
						seen[d.ID] = worker
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if len(seen) != n {
			t.Errorf("%d deliveries claimed, want %d", len(seen), n)
		}
		// Within the lease nobody claims them again; after it, they are due once more.
		if again, err := second.ClaimWebhookDeliveries(ctx, "late", now.Add(30*time.Second), time.Minute, 100); err != nil || len(again) != 0 {
			t.Errorf("claimed again within the lease: %d, %v", len(again), err)
		}
		if again, err := second.ClaimWebhookDeliveries(ctx, "late", now.Add(2*time.Minute), time.Minute, 100); err != nil || len(again) != n {
			t.Errorf("claimed after the lease ran out: %d, %v", len(again), err)
		}
	})
}

// TestWebhookRetriesBackOffForADay: a failed attempt is due again after 10 s, then 20 s, …;
// past its 24 hours it fails for good, and every attempt is in the log.
func TestWebhookRetriesBackOffForADay(t *testing.T) {
	if got := []time.Duration{models.Backoff(1), models.Backoff(2), models.Backoff(3), models.Backoff(20)}; !slices.Equal(got, []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, time.Hour}) {
		t.Errorf("backoff %v", got)
	}
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		ep := newEndpoint(t, s, "http://127.0.0.1:9/", models.EventIncidentCreated)
		if _, err := s.CreateIncident(ctx, seed000(t), models.Children{}); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		fail := models.AttemptResult{StatusCode: 503, ResponseHead: "busy", Duration: 12 * time.Millisecond}
		claim := func(at time.Time) []models.WebhookDelivery {
			t.Helper()
			got, err := s.ClaimWebhookDeliveries(ctx, "w", at, time.Minute, 10)
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		d := claim(start)
		if len(d) != 1 {
			t.Fatalf("claimed %d", len(d))
		}
		if err := s.RecordWebhookAttempt(ctx, &d[0], "w", fail, start); err != nil {
			t.Fatal(err)
		}
		if got := claim(start.Add(9 * time.Second)); len(got) != 0 {
			t.Error("due again before its 10 s backoff")
		}
		d = claim(start.Add(11 * time.Second))
		if len(d) != 1 || d[0].Attempts != 1 {
			t.Fatalf("after the backoff: %+v", d)
		}
		if err := s.RecordWebhookAttempt(ctx, &d[0], "w", fail, start.Add(11*time.Second)); err != nil {
			t.Fatal(err)
		}
		if got := claim(start.Add(30 * time.Second)); len(got) != 0 {
			t.Error("due again before its 20 s backoff")
		}
		late := start.Add(models.RetryWindow + time.Minute)
		d = claim(late)
		if len(d) != 1 {
			t.Fatalf("claimed %d a day later", len(d))
		}
		if err := s.RecordWebhookAttempt(ctx, &d[0], "w", models.AttemptResult{Err: "connection refused"}, late); err != nil {
			t.Fatal(err)
		}
		if got := claim(late.Add(time.Hour)); len(got) != 0 {
			t.Error("retried after its day was over")
		}
		list, err := s.WebhookDeliveries(ctx, ep.ID, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 1 || list[0].State != models.DeliveryFailed || len(list[0].AttemptLog) != 3 {
			t.Fatalf("after a day: %+v", list)
		}
		if a := list[0].AttemptLog[2]; a.StatusCode != 503 || a.ResponseHead != "busy" || a.DurationMS != 12 {
			t.Errorf("first attempt logged as %+v", a)
		}
		if list[0].AttemptLog[0].Error != "connection refused" {
			t.Errorf("last attempt logged as %+v", list[0].AttemptLog[0])
		}
		// A redelivery is due at once, with the same message id, and a success clears the
		// endpoint's failing streak.
		if err := s.RedeliverWebhook(ctx, ep.ID, list[0].ID); err != nil {
			t.Fatal(err)
		}
		d = claim(time.Now())
		if len(d) != 1 || d[0].MessageID != list[0].MessageID {
			t.Fatalf("redelivered: %+v", d)
		}
		if err := s.RecordWebhookAttempt(ctx, &d[0], "w", models.AttemptResult{StatusCode: 204}, time.Now()); err != nil {
			t.Fatal(err)
		}
		got, err := s.WebhookEndpoint(ctx, ep.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.FailingSince != nil || !got.Enabled {
			t.Errorf("endpoint after a success: %+v", got)
		}
		if err := s.RedeliverWebhook(ctx, ep.ID+1000, list[0].ID); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("redeliver through another endpoint: %v", err)
		}
		// Delivered and failed deliveries leave the log after KeepDeliveries; pending ones stay.
		if _, err := s.CreateIncident(ctx, seed000(t), models.Children{}); err != nil {
			t.Fatal(err)
		}
		if n, err := s.PruneWebhookDeliveries(ctx, time.Now()); err != nil || n != 1 {
			t.Errorf("pruned %d, %v; want the one delivered", n, err)
		}
		if left := deliveryTypes(t, s, ep.ID); len(left) != 1 {
			t.Errorf("after pruning: %v, want the pending one", left)
		}
	})
}

// TestWebhookEndpointSwitchedOffAfterThreeDays: an endpoint whose every attempt failed for three
// days is switched off, says why, and is sent nothing more until an admin turns it on again.
func TestWebhookEndpointSwitchedOffAfterThreeDays(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		ep := newEndpoint(t, s, "http://127.0.0.1:9/", models.EventIncidentCreated)
		start := time.Now()
		fail := models.AttemptResult{StatusCode: 500}
		attempt := func(at time.Time) {
			t.Helper()
			if _, err := s.CreateIncident(ctx, seed000(t), models.Children{}); err != nil {
				t.Fatal(err)
			}
			if now := time.Now(); now.After(at) {
				at = now // the delivery was queued just now
			}
			claimed, err := s.ClaimWebhookDeliveries(ctx, "w", at, time.Minute, 10)
			if err != nil || len(claimed) == 0 {
				t.Fatalf("claim at %s: %d, %v", at, len(claimed), err)
			}
			for n := range claimed {
				if err := s.RecordWebhookAttempt(ctx, &claimed[n], "w", fail, at); err != nil {
					t.Fatal(err)
				}
			}
		}
		attempt(start)
		attempt(start.Add(48 * time.Hour))
		if got, _ := s.WebhookEndpoint(ctx, ep.ID); !got.Enabled || got.FailingSince == nil {
			t.Fatalf("after two days of failures: %+v", got)
		}
		attempt(start.Add(73 * time.Hour))
		got, err := s.WebhookEndpoint(ctx, ep.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Enabled || got.DisabledAt == nil || !strings.Contains(got.DisabledReason, "HTTP 500") {
			t.Fatalf("after three days of failures: %+v", got)
		}
		if _, err := s.CreateIncident(ctx, seed000(t), models.Children{}); err != nil {
			t.Fatal(err)
		}
		if claimed, _ := s.ClaimWebhookDeliveries(ctx, "w", start.Add(80*time.Hour), time.Minute, 10); len(claimed) != 0 {
			t.Errorf("a switched-off endpoint's deliveries were claimed: %d", len(claimed))
		}
		if err := s.UpdateWebhookEndpoint(ctx, ep.ID, models.WebhookEndpointInput{URL: ep.URL, Events: ep.EventList(), Format: ep.Format, Enabled: true}, true); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.WebhookEndpoint(ctx, ep.ID); !got.Enabled || got.FailingSince != nil || got.DisabledReason != "" {
			t.Errorf("turned on again: %+v", got)
		}
	})
}

// TestFollowUpOverdueIsSentOnce: the periodic check queues follow_up.overdue once for a
// follow-up past its due date, however often it runs, and not for one done or not yet due.
func TestFollowUpOverdueIsSentOnce(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		inc, err := s.CreateIncident(ctx, seed000(t), models.Children{})
		if err != nil {
			t.Fatal(err)
		}
		now := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
		due := func(days int) *time.Time { d := now.AddDate(0, 0, days); return &d }
		for _, f := range []models.FollowUpInput{
			{Title: "Overdue", Kind: "detect", Priority: "p1", Status: "open", DueOn: due(-2)},
			{Title: "Done late", Kind: "detect", Priority: "p1", Status: "done", DueOn: due(-2)},
			{Title: "Due next week", Kind: "detect", Priority: "p1", Status: "in_progress", DueOn: due(7)},
		} {
			if _, err := s.CreateFollowUp(ctx, inc.ID, f); err != nil {
				t.Fatal(err)
			}
		}
		if n, err := s.EnqueueOverdueFollowUps(ctx, now); err != nil || n != 0 {
			t.Fatalf("with no endpoint wanting it: %d, %v", n, err)
		}
		ep := newEndpoint(t, s, "http://127.0.0.1:9/", models.EventFollowUpOverdue)
		for range 3 {
			if _, err := s.EnqueueOverdueFollowUps(ctx, now); err != nil {
				t.Fatal(err)
			}
		}
		list, err := s.WebhookDeliveries(ctx, ep.ID, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 1 || list[0].EventType != models.EventFollowUpOverdue || !strings.Contains(list[0].Payload, `"title":"Overdue"`) {
			t.Fatalf("overdue deliveries: %+v", list)
		}
	})
}

// TestWebhookURLsAreChecked: bad URLs and missing events are refused beside their fields, and
// loopback and private addresses unless allowed.
func TestWebhookURLsAreChecked(t *testing.T) {
	for _, c := range []struct {
		in           models.WebhookEndpointInput
		allowPrivate bool
		field, want  string
	}{
		{models.WebhookEndpointInput{URL: "", Events: []string{"incident.created"}, Format: "standard"}, false, "url", "Enter the URL"},
		{models.WebhookEndpointInput{URL: "ftp://example.com/x", Events: []string{"incident.created"}, Format: "standard"}, false, "url", "full http"},
		{models.WebhookEndpointInput{URL: "hooks.example.com", Events: []string{"incident.created"}, Format: "standard"}, false, "url", "full http"},
		{models.WebhookEndpointInput{URL: "http://127.0.0.1:8080/", Events: []string{"incident.created"}, Format: "standard"}, false, "url", "loopback"},
		{models.WebhookEndpointInput{URL: "http://[::1]/", Events: []string{"incident.created"}, Format: "standard"}, false, "url", "loopback"},
		{models.WebhookEndpointInput{URL: "http://169.254.169.254/latest/meta-data", Events: []string{"incident.created"}, Format: "standard"}, false, "url", "link-local"},
		{models.WebhookEndpointInput{URL: "http://localhost/", Events: []string{"incident.created"}, Format: "standard"}, false, "url", "loopback"},
		{models.WebhookEndpointInput{URL: "https://hooks.example.com/x", Format: "standard"}, false, "events", "at least one"},
		{models.WebhookEndpointInput{URL: "https://hooks.example.com/x", Events: []string{"incident.deleted"}, Format: "standard"}, false, "events", "not an event"},
		{models.WebhookEndpointInput{URL: "https://hooks.example.com/x", Events: []string{"incident.created"}, Format: "teams"}, false, "format", "Choose"},
	} {
		errs := models.ValidateWebhookEndpoint(c.in, c.allowPrivate)
		if got := errs.For(c.field); !strings.Contains(got, c.want) {
			t.Errorf("%+v: %s says %q, want %q", c.in, c.field, got, c.want)
		}
	}
	ok := models.WebhookEndpointInput{URL: "http://127.0.0.1:8080/", Events: []string{"incident.created"}, Format: "slack"}
	if errs := models.ValidateWebhookEndpoint(ok, true); len(errs) != 0 {
		t.Errorf("loopback allowed: %v", errs)
	}
}

// TestWebhookClientRefusesLoopbackWithoutTheFlag: the delivery client checks the address it is
// about to connect to, after resolution, so a loopback receiver (reached by IP or by the name
// localhost) is refused unless private addresses are allowed; and it follows no redirect.
func TestWebhookClientRefusesLoopbackWithoutTheFlag(t *testing.T) {
	var hits sync.Map
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Store(r.URL.Path, true)
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	byName := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	for _, u := range []string{srv.URL + "/ip", byName + "/name"} {
		_, err := models.WebhookClient(false).Post(u, "application/json", strings.NewReader("{}"))
		if !errors.Is(err, models.ErrForbiddenAddress) {
			t.Errorf("%s without the flag: %v", u, err)
		}
	}
	if _, ok := hits.Load("/ip"); ok {
		t.Error("the refused request reached the server")
	}
	resp, err := models.WebhookClient(true).Post(srv.URL+"/ip", "application/json", strings.NewReader("{}"))
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("with the flag: %v", err)
	}
	resp.Body.Close()
	resp, err = models.WebhookClient(true).Post(srv.URL+"/redirect", "application/json", strings.NewReader("{}"))
	if err != nil || resp.StatusCode != http.StatusFound {
		t.Fatalf("redirect: %v", err)
	}
	resp.Body.Close()
	if _, ok := hits.Load("/elsewhere"); ok {
		t.Error("the redirect was followed")
	}
}

// TestWebhooksVerifiedByStandardWebhooks runs the delivery workers against a receiver that
// checks each message with npm's standardwebhooks: the messages arrive signed as the spec
// says, with their payloads, woken by the write (the workers' poll is an hour); a redelivery
// keeps its message id; a receiver holding another secret refuses them, and the log says so.
func TestWebhooksVerifiedByStandardWebhooks(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx, cancel := context.WithCancel(context.Background())
		receiver := webhooktest.Start(t, 0)
		ep := newEndpoint(t, s, receiver.URL, models.EventIncidentCreated, models.EventTimelineCreated)
		receiver.SetSecret(t, ep.Secret)
		done := make(chan struct{})
		go func() {
			defer close(done)
			s.RunWebhookDeliveries(ctx, models.DeliveryOptions{Workers: 2, AllowPrivate: true, Poll: time.Hour, OverdueEvery: time.Hour})
		}()
		defer func() { cancel(); <-done }()

		in := seed000(t)
		inc, err := s.CreateIncident(ctx, in, models.Children{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateEvent(ctx, inc.ID, models.EventInput{At: time.Date(2026, 3, 12, 17, 0, 0, 0, time.UTC), Kind: "action", Body: "Rolled back"}); err != nil {
			t.Fatal(err)
		}
		got := receiver.WaitFor(t, 30*time.Second, "two verified messages", func(m []webhooktest.Message) bool { return len(m) >= 2 })
		types := []string{got[0].Type, got[1].Type}
		sort.Strings(types)
		if !slices.Equal(types, []string{models.EventIncidentCreated, models.EventTimelineCreated}) {
			t.Errorf("received %v", types)
		}
		for _, m := range got {
			var p struct {
				Data struct {
					ID         int64  `json:"id"`
					IncidentID int64  `json:"incident_id"`
					Title      string `json:"title"`
					Body       string `json:"body"`
				} `json:"data"`
			}
			if err := json.Unmarshal(m.Payload, &p); err != nil {
				t.Fatal(err)
			}
			if m.Type == models.EventIncidentCreated && (p.Data.ID != inc.ID || p.Data.Title != in.Title) {
				t.Errorf("incident.created carries %+v", p.Data)
			}
			if m.Type == models.EventTimelineCreated && (p.Data.IncidentID != inc.ID || p.Data.Body != "Rolled back") {
				t.Errorf("timeline.created carries %+v", p.Data)
			}
		}
		list := waitForStates(t, s, ep.ID, 2, models.DeliveryDelivered)
		if a := list[0].AttemptLog; len(a) != 1 || a[0].StatusCode != 200 || a[0].ResponseHead != "thanks" {
			t.Errorf("attempt log %+v", a)
		}
		if err := s.RedeliverWebhook(ctx, ep.ID, list[0].ID); err != nil {
			t.Fatal(err)
		}
		again := receiver.WaitFor(t, 30*time.Second, "the redelivery", func(m []webhooktest.Message) bool { return len(m) >= 3 })
		if again[2].ID != list[0].MessageID {
			t.Errorf("redelivered as %s, was %s", again[2].ID, list[0].MessageID)
		}

		// Negative control: the library refuses what another key signed.
		receiver.SetSecret(t, models.NewWebhookSecret())
		if _, err := s.CreateIncident(ctx, in, models.Children{}); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for len(receiver.Refused()) == 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if len(receiver.Refused()) == 0 {
			t.Fatal("a message signed with another secret was not refused")
		}
		if len(receiver.Messages()) != 3 {
			t.Errorf("%d verified messages, want 3", len(receiver.Messages()))
		}
	})
}

func waitForStates(t *testing.T, s *models.Store, endpointID int64, n int, state string) []models.WebhookDelivery {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		list, err := s.WebhookDeliveries(context.Background(), endpointID, 100)
		if err != nil {
			t.Fatal(err)
		}
		count := 0
		for _, d := range list {
			if d.State == state {
				count++
			}
		}
		if count >= n {
			return list
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited for %d deliveries %s: %+v", n, state, list)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSlackFormatSendsTextAndBlocks: a Slack-compatible endpoint gets what an incoming webhook
// takes, text and blocks, with the incident's title escaped and a link built on the base URL.
func TestSlackFormatSendsTextAndBlocks(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		bodies := make(chan []byte, 4)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var raw json.RawMessage
			_ = json.NewDecoder(r.Body).Decode(&raw)
			bodies <- raw
			_, _ = w.Write([]byte("ok"))
		}))
		defer srv.Close()
		ctx, cancel := context.WithCancel(context.Background())
		ep, err := s.CreateWebhookEndpoint(ctx, models.WebhookEndpointInput{URL: srv.URL, Events: []string{models.EventIncidentCreated}, Format: models.WebhookSlack}, true)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			s.RunWebhookDeliveries(ctx, models.DeliveryOptions{Workers: 1, AllowPrivate: true, BaseURL: "https://hindsight.example.com/", Poll: time.Hour, OverdueEvery: time.Hour})
		}()
		defer func() { cancel(); <-done }()
		in := seed000(t)
		in.Title = "Canada <slow> & timing out"
		inc, err := s.CreateIncident(ctx, in, models.Children{})
		if err != nil {
			t.Fatal(err)
		}
		var msg struct {
			Text   string           `json:"text"`
			Blocks []map[string]any `json:"blocks"`
		}
		select {
		case raw := <-bodies:
			if err := json.Unmarshal(raw, &msg); err != nil {
				t.Fatal(err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("nothing arrived")
		}
		if !strings.Contains(msg.Text, "Canada &lt;slow&gt; &amp; timing out") || !strings.Contains(msg.Text, "<https://hindsight.example.com/incidents/"+itoa(inc.ID)+"|") {
			t.Errorf("text %q", msg.Text)
		}
		if len(msg.Blocks) == 0 || msg.Blocks[0]["type"] != "section" {
			t.Errorf("blocks %v", msg.Blocks)
		}
		waitForStates(t, s, ep.ID, 1, models.DeliveryDelivered)
	})
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// TestWorkersRefuseLoopbackWithoutTheFlag: an endpoint on loopback (saved while private
// addresses were allowed) gets nothing from workers running without the flag: the attempt is
// logged as refused and the receiver is never reached.
func TestWorkersRefuseLoopbackWithoutTheFlag(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		reached := make(chan struct{}, 1)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			reached <- struct{}{}
		}))
		defer srv.Close()
		ep := newEndpoint(t, s, srv.URL, models.EventIncidentCreated)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			s.RunWebhookDeliveries(ctx, models.DeliveryOptions{Workers: 1, AllowPrivate: false, Poll: time.Hour, OverdueEvery: time.Hour})
		}()
		defer func() { cancel(); <-done }()
		if _, err := s.CreateIncident(ctx, seed000(t), models.Children{}); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			list, err := s.WebhookDeliveries(ctx, ep.ID, 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(list) > 0 && len(list[0].AttemptLog) > 0 {
				if a := list[0].AttemptLog[0]; a.StatusCode != 0 || a.Error != models.ErrForbiddenAddress.Error() || list[0].State != models.DeliveryPending {
					t.Errorf("attempt %+v, delivery %s", a, list[0].State)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("no attempt was logged")
			}
			time.Sleep(10 * time.Millisecond)
		}
		select {
		case <-reached:
			t.Error("the loopback receiver was reached")
		default:
		}
	})
}
