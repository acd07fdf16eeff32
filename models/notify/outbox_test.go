package notify_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/notify/smtptest"
	"hindsight/models/storetest"
)

// waitUntil waits for cond, failing the test after a generous bound.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("gave up waiting until %s", what)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// subscribeConfirmed subscribes an address and confirms it with the link of the mail that came.
func subscribeConfirmed(t *testing.T, s *models.Store, smtp *smtptest.Server, address string) string {
	t.Helper()
	ctx := context.Background()
	before := len(smtp.Messages(t))
	if err := s.Subscribe(ctx, models.SubscribeInput{Email: address, IP: "192.0.2.9"}); err != nil {
		t.Fatal(err)
	}
	msgs := smtp.WaitFor(t, ctx, before+1)
	m := tokenLink.FindStringSubmatch(msgs[before].Body)
	if m == nil {
		t.Fatalf("no confirm link in %q", msgs[before].Body)
	}
	if err := s.ConfirmSubscriber(ctx, m[1]); err != nil {
		t.Fatal(err)
	}
	return m[1]
}

// TestOutboxSurvivesARestart queues an update while the SMTP server is down, stops the worker
// and the store as a server stopping would, brings the SMTP server up on the same address and
// opens the database again: the update arrives, once.
func TestOutboxSurvivesARestart(t *testing.T) {
	storetest.EachShared(t, func(t *testing.T, open func() *models.Store) {
		ctx := context.Background()
		first := open()
		smtp := smtptest.Start(t, "")
		addr := smtp.Addr
		stop := startWorker(t, first, addr)
		subscribeConfirmed(t, first, smtp, "reader@example.com")
		inc := publicIncident(t, first, "API")

		smtp.Stop()
		if _, err := first.CreateEvent(ctx, inc.ID, models.EventInput{At: time.Now().UTC(), Kind: "status_update", Status: "investigating", Body: "Errors on the API.", Public: true}); err != nil {
			t.Fatal(err)
		}
		waitUntil(t, "the delivery has failed at least once", func() bool {
			ds, err := first.Deliveries(ctx)
			if err != nil {
				t.Fatal(err)
			}
			last := ds[len(ds)-1]
			return last.Kind == models.MessageUpdate && last.Attempts >= 1 && last.SentAt == nil && last.LastError != ""
		})
		stop()
		if err := first.Close(); err != nil {
			t.Fatal(err)
		}

		smtp = smtptest.Start(t, addr)
		second := open()
		startWorker(t, second, addr)
		ds := settled(t, second)
		msgs := smtp.Messages(t)
		if len(msgs) != 1 {
			t.Fatalf("want the update once after the restart, got %d messages; deliveries %+v", len(msgs), ds)
		}
		if got := msgs[0].Header.Get("Subject"); got != "[Status] Checkout errors: Investigating" {
			t.Errorf("subject %q", got)
		}
		last := ds[len(ds)-1]
		if last.SentAt == nil || last.Attempts < 2 {
			t.Errorf("delivery %+v: want sent after at least one failed attempt", last)
		}
	})
}

// TestWebhookSubscribersGetStatuspagePayloads posts Statuspage's incident payload to a webhook,
// and refuses a loopback webhook when private addresses are not allowed, checked when dialling.
func TestWebhookSubscribersGetStatuspagePayloads(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		bodies := make(chan []byte, 10)
		hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
				http.Error(w, "want a JSON post", http.StatusBadRequest)
				return
			}
			bodies <- b
		}))
		defer hook.Close()
		stop := startWorkerWith(t, s, smtptest.FreeAddr(t), true)
		if err := s.Subscribe(ctx, models.SubscribeInput{WebhookURL: hook.URL + "/hooks/status", IP: "192.0.2.7"}); err != nil {
			t.Fatal(err)
		}
		inc := publicIncident(t, s, "API")
		if _, err := s.CreateEvent(ctx, inc.ID, models.EventInput{At: time.Now().UTC(), Kind: "status_update", Status: "identified", Body: "The cache is cold. ![graph](/images/5)", Public: true}); err != nil {
			t.Fatal(err)
		}
		var body []byte
		select {
		case body = <-bodies:
		case <-time.After(30 * time.Second):
			t.Fatal("no webhook arrived")
		}
		var payload struct {
			Meta struct {
				Unsubscribe   string `json:"unsubscribe"`
				Documentation string `json:"documentation"`
				GeneratedAt   string `json:"generated_at"`
			} `json:"meta"`
			Page struct {
				ID                string `json:"id"`
				StatusIndicator   string `json:"status_indicator"`
				StatusDescription string `json:"status_description"`
			} `json:"page"`
			Incident struct {
				ID              string `json:"id"`
				Name            string `json:"name"`
				Status          string `json:"status"`
				Shortlink       string `json:"shortlink"`
				IncidentUpdates []struct {
					Status string `json:"status"`
					Body   string `json:"body"`
				} `json:"incident_updates"`
			} `json:"incident"`
		}
		if err := json.Unmarshal(body, &payload); err != nil {
			t.Fatalf("payload %s: %v", body, err)
		}
		if !strings.Contains(payload.Meta.Unsubscribe, "/status/unsubscribe/") || payload.Meta.GeneratedAt == "" || payload.Page.ID == "" || payload.Page.StatusDescription == "" {
			t.Errorf("meta or page incomplete: %s", body)
		}
		if payload.Incident.Name != "Checkout errors" || len(payload.Incident.IncidentUpdates) == 0 {
			t.Fatalf("incident: %s", body)
		}
		// A subscriber's server resolves no relative link: the image at the status page's address.
		if got := payload.Incident.IncidentUpdates[0].Body; !strings.HasPrefix(got, "The cache is cold. ![graph](http") || !strings.HasSuffix(got, "/status/images/5)") {
			t.Errorf("update body %q, want the image at the status page's absolute address", got)
		}
		settled(t, s)
		stop()

		// The same webhook with private addresses refused: given up at once, nothing posted.
		startWorkerWith(t, s, smtptest.FreeAddr(t), false)
		if _, err := s.CreateEvent(ctx, inc.ID, models.EventInput{At: time.Now().UTC(), Kind: "status_update", Status: "resolved", Body: "Warm again.", Public: true}); err != nil {
			t.Fatal(err)
		}
		ds := settled(t, s)
		last := ds[len(ds)-1]
		if last.FailedAt == nil || last.SentAt != nil || !strings.Contains(last.LastError, "not a public one") {
			t.Errorf("delivery to a loopback webhook: %+v", last)
		}
		select {
		case b := <-bodies:
			t.Errorf("a webhook reached a loopback address: %s", b)
		default:
		}
	})
}
