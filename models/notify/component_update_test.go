package notify_test

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/notify/smtptest"
	"hindsight/models/storetest"
)

var statuspageTime = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

// TestWebhookSubscribersGetComponentUpdates runs the real delivery path (the store's write path,
// the outbox, the worker, an HTTP receiver) and reads Statuspage's component_update payloads: one
// per change of a component's computed status, as an impact window on its service opens and
// closes and a maintenance of it starts and is removed, with Statuspage's keys; nothing for a
// write that moves no status, and nothing to a subscriber of another component.
func TestWebhookSubscribersGetComponentUpdates(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		type post struct {
			path string
			body []byte
		}
		posts := make(chan post, 20)
		hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			posts <- post{r.URL.Path, b}
		}))
		defer hook.Close()
		startWorkerWith(t, s, smtptest.FreeAddr(t), true)
		api, err := s.SaveComponent(ctx, 0, models.ComponentInput{Name: "API", Showcase: true, Services: []string{"API"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.SaveComponent(ctx, 0, models.ComponentInput{Name: "Database", Showcase: true, Services: []string{"Postgres"}}); err != nil {
			t.Fatal(err)
		}
		for _, in := range []models.SubscribeInput{
			{WebhookURL: hook.URL + "/all", IP: "192.0.2.7"},
			{WebhookURL: hook.URL + "/database", Components: []string{"Database"}, IP: "192.0.2.7"},
		} {
			if err := s.Subscribe(ctx, in); err != nil {
				t.Fatal(err)
			}
		}
		type update struct {
			Meta            map[string]any `json:"meta"`
			Page            map[string]any `json:"page"`
			ComponentUpdate map[string]any `json:"component_update"`
			Component       map[string]any `json:"component"`
		}
		next := func(from, to string) update {
			t.Helper()
			var p post
			select {
			case p = <-posts:
			case <-time.After(30 * time.Second):
				t.Fatalf("no component_update for %s → %s", from, to)
			}
			var raw map[string]json.RawMessage
			if err := json.Unmarshal(p.body, &raw); err != nil {
				t.Fatalf("payload %s: %v", p.body, err)
			}
			if got := slices.Sorted(maps.Keys(raw)); !slices.Equal(got, []string{"component", "component_update", "meta", "page"}) {
				t.Fatalf("payload keys %v: %s", got, p.body)
			}
			var u update
			if err := json.Unmarshal(p.body, &u); err != nil {
				t.Fatal(err)
			}
			if p.path != "/all" {
				t.Errorf("a subscriber of another component was told: %s %s", p.path, p.body)
			}
			keys := func(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }
			if got := keys(u.Meta); !slices.Equal(got, []string{"documentation", "unsubscribe"}) || !strings.Contains(u.Meta["unsubscribe"].(string), "/status/unsubscribe/") {
				t.Errorf("meta %v", u.Meta)
			}
			if got := keys(u.Page); !slices.Equal(got, []string{"id", "status_description", "status_indicator"}) {
				t.Errorf("page keys %v", got)
			}
			if got := keys(u.ComponentUpdate); !slices.Equal(got, []string{"component_id", "created_at", "id", "new_status", "old_status"}) {
				t.Errorf("component_update keys %v", got)
			}
			cu := u.ComponentUpdate
			if cu["old_status"] != from || cu["new_status"] != to || cu["component_id"] != "1" || cu["id"] == "" {
				t.Errorf("component_update %v, want API %s → %s", cu, from, to)
			}
			if at, _ := cu["created_at"].(string); !statuspageTime.MatchString(at) {
				t.Errorf("created_at %q is not Statuspage's form", cu["created_at"])
			}
			if u.Component["id"] != "1" || u.Component["name"] != "API" || u.Component["status"] != to {
				t.Errorf("component %v", u.Component)
			}
			return u
		}
		quiet := func(what string) {
			t.Helper()
			settled(t, s)
			select {
			case p := <-posts:
				t.Errorf("%s posted %s %s", what, p.path, p.body)
			default:
			}
		}

		// An impact window opens on the component's service: operational → major outage.
		inc := publicIncident(t, s, "API")
		quiet("an incident without impact")
		start := time.Now().UTC().Add(-time.Minute)
		w, err := s.CreateWindow(ctx, inc.ID, models.WindowInput{StartedAt: start, Level: "major_outage", Services: []string{"API"}})
		if err != nil {
			t.Fatal(err)
		}
		if u := next(models.ComponentOperational, models.ComponentMajor); u.Page["status_indicator"] == "none" {
			t.Errorf("page %v during a major outage", u.Page)
		}
		// A write that moves no status: nothing.
		if _, err := s.CreateEvent(ctx, inc.ID, models.EventInput{At: time.Now().UTC(), Kind: "action", Body: "Restarted."}); err != nil {
			t.Fatal(err)
		}
		quiet("a timeline entry")
		// The window closes: major outage → operational.
		ended := time.Now().UTC()
		if err := s.UpdateWindow(ctx, inc.ID, w.ID, models.WindowInput{StartedAt: start, EndedAt: &ended, Level: "major_outage", Services: []string{"API"}}); err != nil {
			t.Fatal(err)
		}
		next(models.ComponentMajor, models.ComponentOperational)

		// Maintenance of the component under way: under maintenance; removed: operational.
		m, err := s.CreateMaintenance(ctx, models.MaintenanceInput{
			Title: "Upgrade", ScheduledFor: time.Now().UTC().Add(-time.Minute), ScheduledUntil: time.Now().UTC().Add(time.Hour),
			Public: true, Components: []int64{api.ID},
		}, models.MaintenanceUpdateInput{Status: "in_progress", Body: "Upgrading."})
		if err != nil {
			t.Fatal(err)
		}
		next(models.ComponentOperational, models.ComponentMaintenance)
		if err := s.DeleteMaintenance(ctx, m.ID); err != nil {
			t.Fatal(err)
		}
		next(models.ComponentMaintenance, models.ComponentOperational)
		quiet("the end")
	})
}
