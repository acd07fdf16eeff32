package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"hindsight/handlers"
	"hindsight/models"
	"hindsight/models/storetest"
	"hindsight/web"
)

// serverOn starts a server on the given store and returns an anonymous client.
func serverOn(t testing.TB, store *models.Store) *app {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	jar, _ := cookiejar.New(nil)
	return &app{t: t, e: web.New(web.Deps{Store: store, Log: log}), store: store, jar: jar}
}

// postAlert sends a notification body with the given headers, as an alerting system would.
func (a *app) postAlert(path string, body string, headers map[string]string) response {
	a.t.Helper()
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	a.e.ServeHTTP(rec, req)
	return response{rec.Code, rec.Body.String(), rec.Header()}
}

func newIntegration(t testing.TB, s *models.Store, in models.IntegrationInput) (string, *models.Integration) {
	t.Helper()
	secret, integ, err := s.CreateIntegration(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return secret, integ
}

func bearer(secret string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + secret}
}

func incidentCount(t testing.TB, s *models.Store) int64 {
	t.Helper()
	_, n, err := s.ListIncidents(context.Background(), models.IncidentFilter{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// amBody is an Alertmanager version 4 notification with one alert per fingerprint.
func amBody(groupKey, status string, startsAt, endsAt time.Time, fingerprints ...string) string {
	var alerts []map[string]any
	for _, fp := range fingerprints {
		alerts = append(alerts, map[string]any{
			"status": status, "fingerprint": fp,
			"labels":      map[string]string{"alertname": "HighErrorRate", "severity": "critical", "service": "checkout", "instance": fp},
			"annotations": map[string]string{"summary": "5xx above 2% for checkout"},
			"startsAt":    startsAt.Format(time.RFC3339Nano), "endsAt": endsAt.Format(time.RFC3339Nano),
		})
	}
	raw, _ := json.Marshal(map[string]any{
		"version": "4", "groupKey": groupKey, "status": status, "receiver": "hindsight",
		"groupLabels": map[string]string{"alertname": "HighErrorRate"}, "alerts": alerts,
	})
	return string(raw)
}

func pdBody(eventType, incidentID string, occurred time.Time) string {
	raw, _ := json.Marshal(map[string]any{"event": map[string]any{
		"id": "01ABC", "event_type": eventType, "resource_type": "incident",
		"occurred_at": occurred.UTC().Format(time.RFC3339Nano),
		"data": map[string]any{
			"id": incidentID, "type": "incident", "title": "Checkout latency", "status": "triggered", "urgency": "high",
			"created_at": occurred.Add(-2 * time.Minute).UTC().Format(time.RFC3339),
			"service":    map[string]any{"summary": "checkout"},
		},
	}})
	return string(raw)
}

// TestAlertReceiversRefuseBadInput: a missing or wrong secret or signature is 401, a replayed
// PagerDuty event is refused, a malformed body is 400 with a JSON error, and none of them writes
// anything.
func TestAlertReceiversRefuseBadInput(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		a := serverOn(t, s)
		ctx := context.Background()
		amSecret, am := newIntegration(t, s, models.IntegrationInput{Kind: models.IntegrationAlertmanager, Name: "am"})
		grSecret, gr := newIntegration(t, s, models.IntegrationInput{Kind: models.IntegrationGrafana, Name: "grafana"})
		pdKey, pd := newIntegration(t, s, models.IntegrationInput{Kind: models.IntegrationPagerDuty, Name: "pd"})
		genSecret, gen := newIntegration(t, s, models.IntegrationInput{Kind: models.IntegrationGeneric, Name: "gen", Mapping: `{"title":"name","dedup_key":"id"}`})
		revokedSecret, revoked := newIntegration(t, s, models.IntegrationInput{Kind: models.IntegrationAlertmanager, Name: "old"})
		if err := s.RevokeIntegration(ctx, revoked.ID); err != nil {
			t.Fatal(err)
		}
		admin := serverOn(t, s).as(models.RoleAdmin)
		apiToken, _, err := s.CreateToken(ctx, adminID(t, s, admin), "ci")
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now().UTC()
		good := amBody("{}:{alertname=\"HighErrorRate\"}", "firing", now.Add(-3*time.Minute), time.Time{}, "fp1")
		pdGood := pdBody("incident.triggered", "PGR0VU2", now)
		pdOld := pdBody("incident.triggered", "PGR0VU2", now.Add(-6*time.Minute))
		pdFuture := pdBody("incident.triggered", "PGR0VU2", now.Add(6*time.Minute))
		path := handlers.AlertReceiverPath
		for _, c := range []struct {
			name    string
			path    string
			body    string
			headers map[string]string
			status  int
			want    string
		}{
			{"no secret", path(am.ID), good, nil, 401, "secret or signature is wrong"},
			{"wrong secret", path(am.ID), good, bearer(amSecret + "x"), 401, "secret or signature is wrong"},
			{"not bearer", path(am.ID), good, map[string]string{"Authorization": "Basic " + amSecret}, 401, ""},
			{"another integration's secret", path(am.ID), good, bearer(grSecret), 401, ""},
			{"an API token", path(am.ID), good, bearer(apiToken), 401, ""},
			{"revoked", path(revoked.ID), good, bearer(revokedSecret), 401, ""},
			{"unknown id", path(999999), good, bearer(amSecret), 401, ""},
			{"id not a number", "/api/v1/integrations/x/alerts", good, bearer(amSecret), 401, ""},
			{"pagerduty without signature", path(pd.ID), pdGood, nil, 401, ""},
			{"pagerduty bad signature", path(pd.ID), pdGood, map[string]string{"X-PagerDuty-Signature": models.SignPagerDuty(pdKey+"x", []byte(pdGood))}, 401, ""},
			{"pagerduty signature of another body", path(pd.ID), pdGood, map[string]string{"X-PagerDuty-Signature": models.SignPagerDuty(pdKey, []byte(pdOld))}, 401, ""},
			{"pagerduty bearer instead of signature", path(pd.ID), pdGood, bearer(pdKey), 401, ""},
			{"pagerduty replayed", path(pd.ID), pdOld, map[string]string{"X-PagerDuty-Signature": models.SignPagerDuty(pdKey, []byte(pdOld))}, 401, "older than 5 minutes"},
			{"pagerduty from the future", path(pd.ID), pdFuture, map[string]string{"X-PagerDuty-Signature": models.SignPagerDuty(pdKey, []byte(pdFuture))}, 401, "older than 5 minutes"},
			{"pagerduty not json", path(pd.ID), "{", map[string]string{"X-PagerDuty-Signature": models.SignPagerDuty(pdKey, []byte("{"))}, 400, `"error"`},
			{"not json", path(am.ID), "{not json", bearer(amSecret), 400, "not the expected JSON"},
			{"two values", path(am.ID), good + good, bearer(amSecret), 400, "more than one JSON value"},
			{"no group key", path(am.ID), strings.Replace(good, `"groupKey"`, `"group"`, 1), bearer(amSecret), 400, "groupKey is missing"},
			{"no alerts", path(am.ID), `{"version":"4","groupKey":"g","status":"firing","alerts":[]}`, bearer(amSecret), 400, "alerts is empty"},
			{"bad status", path(am.ID), strings.ReplaceAll(good, `"firing"`, `"burning"`), bearer(amSecret), 400, "not firing or resolved"},
			{"bad time", path(am.ID), strings.Replace(good, `"startsAt":"`, `"startsAt":"yesterday`, 1), bearer(amSecret), 400, `"error"`},
			{"wrong version", path(am.ID), strings.Replace(good, `"version":"4"`, `"version":"9"`, 1), bearer(amSecret), 400, "version"},
			{"grafana given alertmanager's version", path(gr.ID), good, bearer(grSecret), 400, "version"},
			{"generic without title", path(gen.ID), `{"id":"x"}`, bearer(genSecret), 400, "no title at name"},
			{"generic without dedup key", path(gen.ID), `{"name":"x"}`, bearer(genSecret), 400, "no dedup key at id"},
			{"generic a number", path(gen.ID), `42`, bearer(genSecret), 400, "JSON object"},
			{"generic bad type", path(gen.ID), `{"name":{"a":1},"id":"x"}`, bearer(genSecret), 400, "not text or a number"},
		} {
			r := a.postAlert(c.path, c.body, c.headers)
			check(t, c.name, r, c.status, []string{c.want}, nil)
			if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("%s: content type %q, want JSON", c.name, ct)
			}
		}
		if n := incidentCount(t, s); n != 0 {
			t.Errorf("refused notifications opened %d incidents", n)
		}
		list, err := s.ListIntegrations(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, integ := range list {
			if integ.LastUsedAt != nil && integ.ID != gen.ID && integ.ID != am.ID && integ.ID != gr.ID {
				t.Errorf("integration %s marked used by a refused request", integ.Name)
			}
		}
		// The right credentials on the same bodies are taken.
		check(t, "good alertmanager", a.postAlert(path(am.ID), good, bearer(amSecret)), 200, []string{`"opened":[`}, nil)
		check(t, "good pagerduty", a.postAlert(path(pd.ID), pdGood, map[string]string{"X-PagerDuty-Signature": "v1=00," + models.SignPagerDuty(pdKey, []byte(pdGood))}), 200, []string{`"opened":[`}, nil)
		if n := incidentCount(t, s); n != 2 {
			t.Errorf("%d incidents after two good notifications, want 2", n)
		}
	})
}

func adminID(t testing.TB, s *models.Store, a *app) int64 {
	t.Helper()
	users, err := s.ListUsers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range users {
		if u.Role == models.RoleAdmin {
			return u.ID
		}
	}
	t.Fatal("no admin")
	return 0
}

func milestoneSource(t testing.TB, inc *models.Incident, name string) models.MilestoneSource {
	t.Helper()
	src, ok := inc.MilestoneSources[name]
	if !ok {
		t.Fatalf("incident %d: no source for %s; sources %+v", inc.ID, name, inc.MilestoneSources)
	}
	return src
}

// TestAlertmanagerNotificationsOpenAndMitigate: a firing group opens one incident whose impact
// start is the alert's startsAt and detection its receipt, both sourced to the alert; a repeat
// adds nothing; the resolution suggests mitigation; a person's typed time replaces an alert's,
// whose time stays in the history; and a typed time is never overwritten by an alert.
func TestAlertmanagerNotificationsOpenAndMitigate(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		a := serverOn(t, s)
		secret, am := newIntegration(t, s, models.IntegrationInput{Kind: models.IntegrationAlertmanager, Name: "am-prod"})
		started := time.Date(2026, 11, 30, 7, 54, 0, 0, time.UTC)
		ended := started.Add(90 * time.Minute)
		key := `{}/{severity="critical"}:{alertname="HighErrorRate"}`
		path := handlers.AlertReceiverPath(am.ID)
		check(t, "firing", a.postAlert(path, amBody(key, "firing", started, time.Time{}, "a1", "a2"), bearer(secret)), 200, []string{`"timeline_entries":2`}, nil)
		check(t, "repeat", a.postAlert(path, amBody(key, "firing", started, time.Time{}, "a1", "a2"), bearer(secret)), 200, []string{`"timeline_entries":0`, `"attached":[`}, nil)
		list, n, err := s.ListIncidents(ctx, models.IncidentFilter{})
		if err != nil || n != 1 {
			t.Fatalf("incidents %d, %v; want 1", n, err)
		}
		inc, err := s.GetIncident(ctx, list[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		if inc.StartedAt == nil || !inc.StartedAt.Equal(started) {
			t.Errorf("impact start %v, want the alert's startsAt %v", inc.StartedAt, started)
		}
		if inc.DetectedAt == nil || inc.Severity != "sev1" || inc.DetectionMethod != "automated_alert" || inc.Title != "HighErrorRate" {
			t.Errorf("incident opened as %+v", inc)
		}
		if src := milestoneSource(t, inc, "started_at"); src.Kind != models.SourceAlert || !strings.Contains(src.Detail, "am-prod") || !strings.Contains(src.Detail, "a1") {
			t.Errorf("impact start source %+v", src)
		}
		if len(inc.Timeline) != 2 {
			t.Fatalf("timeline %d entries, want 2", len(inc.Timeline))
		}
		for _, ev := range inc.Timeline {
			if ev.Kind != "alert" || ev.Public || !strings.Contains(ev.Body, "FIRING") {
				t.Errorf("timeline entry %+v, want an internal alert", ev)
			}
		}
		if inc.MitigatedAt != nil {
			t.Errorf("mitigated before any alert resolved")
		}
		// One of two resolving leaves the incident unmitigated.
		check(t, "one resolved", a.postAlert(path, amBody(key, "resolved", started, ended.Add(-time.Minute), "a1"), bearer(secret)), 200, []string{`"timeline_entries":1`}, nil)
		if inc, _ = s.GetIncident(ctx, inc.ID); inc.MitigatedAt != nil {
			t.Errorf("mitigated while a2 still fires")
		}
		check(t, "all resolved", a.postAlert(path, amBody(key, "resolved", started, ended, "a1", "a2"), bearer(secret)), 200, []string{`"timeline_entries":1`}, nil)
		inc, _ = s.GetIncident(ctx, inc.ID)
		if inc.MitigatedAt == nil || !inc.MitigatedAt.Equal(ended) {
			t.Errorf("mitigated %v, want the last alert's endsAt %v", inc.MitigatedAt, ended)
		}
		if src := milestoneSource(t, inc, "mitigated_at"); src.Kind != models.SourceAlert || !strings.Contains(src.Detail, "am-prod (alert a") {
			t.Errorf("mitigation source %+v", src)
		}

		// A person types the impact start: it is theirs now, and the alert's stays in the history.
		typed := started.Add(-10 * time.Minute)
		in := incidentInputOf(inc)
		in.Milestones.StartedAt = &typed
		person := models.WithActor(ctx, models.Actor{UserID: adminID(t, s, a.as(models.RoleAdmin)), Label: "Ann"})
		if _, err := s.UpdateIncident(person, inc.ID, inc.Version, in, models.Children{}); err != nil {
			t.Fatal(err)
		}
		inc, _ = s.GetIncident(ctx, inc.ID)
		if src := milestoneSource(t, inc, "started_at"); src.Kind != models.SourceTyped || src.Detail != "Ann" || src.UserID == nil {
			t.Errorf("typed impact start source %+v", src)
		}
		history, err := s.History(ctx, inc.ID)
		if err != nil {
			t.Fatal(err)
		}
		var kept bool
		for _, e := range history {
			for _, c := range e.ChangeList() {
				if c.Field == "started_at" && c.Before == started.Format(time.RFC3339) && e.Actor == "Ann" {
					kept = true
				}
				if c.Field == "started_at_source" && !strings.Contains(fmt.Sprint(c.Before), "am-prod") {
					t.Errorf("history says the earlier source was %v", c.Before)
				}
			}
		}
		if !kept {
			t.Errorf("the history lost the alert's impact start %s: %+v", started.Format(time.RFC3339), history)
		}
		// The same group firing again joins the open incident and leaves the typed time alone.
		check(t, "firing again", a.postAlert(path, amBody(key, "firing", started.Add(time.Hour), time.Time{}, "a3"), bearer(secret)), 200, []string{`"attached":[`}, nil)
		inc, _ = s.GetIncident(ctx, inc.ID)
		if !inc.StartedAt.Equal(typed) {
			t.Errorf("an alert overwrote the typed impact start: %v", inc.StartedAt)
		}
		if n := incidentCount(t, s); n != 1 {
			t.Errorf("%d incidents, want 1", n)
		}
	})
}

func incidentInputOf(inc *models.Incident) models.IncidentInput {
	return models.IncidentInput{
		Title: inc.Title, Summary: inc.Summary, Severity: inc.Severity, Status: inc.Status,
		DetectionMethod: inc.DetectionMethod, TimeZone: inc.TimeZone, PostmortemState: inc.PostmortemState,
		Services: inc.ServiceNames(), Regions: inc.RegionNames(), Milestones: inc.Milestones(),
	}
}

// TestPagerDutyAndGenericReceivers: PagerDuty's triggered, acknowledged and resolved events move
// one incident's milestones; the generic receiver maps any JSON.
func TestPagerDutyAndGenericReceivers(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		a := serverOn(t, s)
		key, pd := newIntegration(t, s, models.IntegrationInput{Kind: models.IntegrationPagerDuty, Name: "pd"})
		now := time.Now().UTC().Truncate(time.Second)
		for _, ev := range []string{"incident.triggered", "incident.acknowledged", "incident.annotated", "incident.resolved"} {
			body := pdBody(ev, "PGR0VU2", now)
			check(t, ev, a.postAlert(handlers.AlertReceiverPath(pd.ID), body, map[string]string{"X-PagerDuty-Signature": models.SignPagerDuty(key, []byte(body))}), 200, nil, nil)
		}
		list, n, _ := s.ListIncidents(ctx, models.IncidentFilter{})
		if n != 1 {
			t.Fatalf("%d incidents, want 1", n)
		}
		inc, _ := s.GetIncident(ctx, list[0].ID)
		if inc.AcknowledgedAt == nil || inc.MitigatedAt == nil || inc.StartedAt == nil || !inc.StartedAt.Equal(now.Add(-2*time.Minute)) {
			t.Errorf("milestones %+v", inc.Milestones())
		}
		if len(inc.Timeline) != 3 {
			t.Errorf("%d timeline entries, want 3 (triggered, acknowledged, resolved)", len(inc.Timeline))
		}

		secret, gen := newIntegration(t, s, models.IntegrationInput{Kind: models.IntegrationGeneric, Name: "uptime",
			Mapping: `{"title":"check.name","dedup_key":"check.id","status":"state","starts_at":"since","severity":"level","service":"check.service"}`})
		started := time.Date(2026, 11, 30, 7, 54, 0, 0, time.UTC)
		body := fmt.Sprintf(`[{"check":{"name":"Login page","id":"c-1","service":"web"},"state":"down","since":%d,"level":"high"}]`, started.Unix())
		check(t, "generic", a.postAlert(handlers.AlertReceiverPath(gen.ID), body, bearer(secret)), 200, []string{`"opened":[`}, nil)
		list, _, _ = s.ListIncidents(ctx, models.IncidentFilter{Text: ""})
		var got *models.Incident
		for _, i := range list {
			if i.Title == "Login page" {
				got, _ = s.GetIncident(ctx, i.ID)
			}
		}
		if got == nil || got.StartedAt == nil || !got.StartedAt.Equal(started) || got.Severity != "sev2" || len(got.Services) != 1 {
			t.Fatalf("generic incident %+v", got)
		}
		check(t, "generic resolved", a.postAlert(handlers.AlertReceiverPath(gen.ID), strings.Replace(body, `"down"`, `"ok"`, 1), bearer(secret)), 200, nil, nil)
		got, _ = s.GetIncident(ctx, got.ID)
		if got.MitigatedAt == nil {
			t.Errorf("generic resolution suggested no mitigation")
		}
	})
}

// TestAlertBurstIsDeduplicated: 1,000 alerts in 10 groups, sent by 20 senders at once and then
// all again, become 10 incidents with one timeline entry per alert; no answer is a 5xx, every
// refusal says when to come back, and the pages answer throughout.
func TestAlertBurstIsDeduplicated(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		a := serverOn(t, s)
		viewer := a.as(models.RoleViewer)
		secret, am := newIntegration(t, s, models.IntegrationInput{Kind: models.IntegrationAlertmanager, Name: "storm"})
		path := handlers.AlertReceiverPath(am.ID)
		started := time.Date(2026, 11, 30, 7, 54, 0, 0, time.UTC)
		var bodies []string
		for round := 0; round < 2; round++ {
			for g := 0; g < 10; g++ {
				for chunk := 0; chunk < 10; chunk++ {
					var fps []string
					for k := 0; k < 10; k++ {
						fps = append(fps, fmt.Sprintf("g%d-a%d", g, chunk*10+k))
					}
					bodies = append(bodies, amBody(fmt.Sprintf("group-%d", g), "firing", started, time.Time{}, fps...))
				}
			}
		}
		work := make(chan string)
		var mu sync.Mutex
		statuses := map[int]int{}
		// A sender told 429 sends again once another notification has been filed: waiting for
		// that, not for a time, keeps the test from spinning.
		filed := 0
		progress := sync.NewCond(&mu)
		var wg sync.WaitGroup
		for w := 0; w < 20; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for body := range work {
					for {
						mu.Lock()
						seen := filed
						mu.Unlock()
						r := a.postAlert(path, body, bearer(secret))
						mu.Lock()
						statuses[r.status]++
						if r.status != http.StatusTooManyRequests {
							filed++
							progress.Broadcast()
						}
						for r.status == http.StatusTooManyRequests && filed == seen {
							progress.Wait()
						}
						mu.Unlock()
						if r.status == http.StatusTooManyRequests {
							if r.header.Get("Retry-After") == "" {
								t.Errorf("429 without Retry-After")
								return
							}
							continue // a sender told to come back sends it again
						}
						if r.status != http.StatusOK {
							t.Errorf("status %d: %.300s", r.status, r.body)
						}
						break
					}
				}
			}()
		}
		pagesDone := make(chan struct{})
		var pageFailures int
		go func() {
			defer close(pagesDone)
			for n := 0; n < 20; n++ {
				if r := viewer.get("/incidents"); r.status != http.StatusOK {
					pageFailures++
				}
			}
		}()
		for _, b := range bodies {
			work <- b
		}
		close(work)
		wg.Wait()
		<-pagesDone
		if pageFailures > 0 {
			t.Errorf("%d incident list pages failed during the burst", pageFailures)
		}
		for status := range statuses {
			if status >= 500 {
				t.Errorf("%d answers were %d", statuses[status], status)
			}
		}
		ctx := context.Background()
		list, n, err := s.ListIncidents(ctx, models.IncidentFilter{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if n != 10 {
			t.Fatalf("%d incidents from 10 groups", n)
		}
		for _, i := range list {
			inc, err := s.GetIncident(ctx, i.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(inc.Timeline) != 100 {
				t.Errorf("incident %d: %d timeline entries, want one per alert (100)", inc.ID, len(inc.Timeline))
			}
		}
		t.Logf("answers: %v", statuses)
	})
}
