package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"hindsight/handlers"
	"hindsight/models"
	"hindsight/models/storetest"
)

var secretPattern = regexp.MustCompile(`id="new-secret">(hsi_[A-Za-z0-9_-]+)<`)

// TestIntegrationsAdminPage: an admin adds an integration and sees its secret once; the receiver
// takes it; revoking it makes the receiver refuse; bad input is kept with a message beside the
// field; others may not see the page.
func TestIntegrationsAdminPage(t *testing.T) {
	a := newApp(t)
	check(t, "empty", a.get("/admin/integrations"), http.StatusOK, []string{"No integrations yet", `name="kind"`, `aria-current="page">Alerts`}, nil)
	r := a.post("/admin/integrations", url.Values{"kind": {"alertmanager"}, "name": {"prod alertmanager"}})
	check(t, "create", r, http.StatusCreated, []string{"shown only once", "/api/v1/integrations/1/alerts", "prod alertmanager"}, nil)
	m := secretPattern.FindStringSubmatch(r.body)
	if m == nil {
		t.Fatalf("no secret on the page: %.2000s", r.body)
	}
	secret := m[1]
	check(t, "listed without the secret", a.get("/admin/integrations"), http.StatusOK, []string{"prod alertmanager", "Active"}, []string{secret})
	body := amBody("g", "firing", time.Now().Add(-time.Minute), time.Time{}, "x")
	check(t, "receiver takes it", a.postAlert(handlers.AlertReceiverPath(1), body, bearer(secret)), http.StatusOK, nil, nil)
	check(t, "revoke", a.post("/admin/integrations/1/revoke", nil), http.StatusSeeOther, nil, nil)
	check(t, "revoked listed", a.get("/admin/integrations?revoked=1"), http.StatusOK, []string{"Revoked"}, nil)
	check(t, "receiver refuses", a.postAlert(handlers.AlertReceiverPath(1), body, bearer(secret)), http.StatusUnauthorized, nil, nil)
	check(t, "bad input", a.post("/admin/integrations", url.Values{"kind": {"generic"}, "name": {""}, "mapping": {`{"title":"x"}`}}), http.StatusUnprocessableEntity,
		[]string{`id="name-error"`, `id="mapping-error"`, `needs at least`, `{&#34;title&#34;:&#34;x&#34;}`}, nil)
	check(t, "unknown kind", a.post("/admin/integrations", url.Values{"kind": {"nagios"}, "name": {"n"}}), http.StatusUnprocessableEntity, []string{`id="kind-error"`}, nil)
	check(t, "revoke unknown", a.post("/admin/integrations/99/revoke", nil), http.StatusNotFound, nil, nil)
	check(t, "no CSRF", a.postRaw("/admin/integrations", url.Values{"kind": {"grafana"}, "name": {"g"}}), http.StatusForbidden, nil, nil)
	responder := a.as(models.RoleResponder)
	check(t, "responder page", responder.get("/admin/integrations"), http.StatusForbidden, nil, nil)
	check(t, "responder create", responder.post("/admin/integrations", url.Values{"kind": {"grafana"}, "name": {"g"}}), http.StatusForbidden, nil, nil)
	if list, _ := a.store.ListIntegrations(context.Background()); len(list) != 1 {
		t.Errorf("%d integrations, want 1", len(list))
	}
}

// TestMilestoneSourcesAreRecordedAndShown: typed on the form, pasted from text (unless changed
// after), set by an alert; the incident page marks each with words, the API returns them, and
// the insights filter keeps only the incidents whose milestones machines set.
func TestMilestoneSourcesAreRecordedAndShown(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		a := serverOn(t, s).as(models.RoleAdmin)
		ctx := context.Background()
		typedPath := a.createIncident(seed000Form())

		// Read from pasted text: the form carries a marker for each milestone it filled.
		r := a.post("/incidents/new/paste", url.Values{"paste": {"Impact start: July 1, 2025 09:00 UTC\nDetected: July 1, 2025 09:30 UTC"}, "paste_time_zone": {"UTC"}})
		check(t, "paste", r, http.StatusOK, []string{`name="pasted_started_at" value="2025-07-01 09:00"`, `name="pasted_detected_at" value="2025-07-01 09:30"`}, nil)
		form := with(seed000Form(), "title", "Pasted", "started_at", "2025-07-01 09:00", "pasted_started_at", "2025-07-01 09:00",
			"detected_at", "2025-07-01 09:45", "pasted_detected_at", "2025-07-01 09:30", "mitigated_at", "", "resolved_at", "")
		pastedPath := a.createIncident(form)

		secret, am := newIntegration(t, s, models.IntegrationInput{Kind: models.IntegrationAlertmanager, Name: "am-prod"})
		check(t, "alert", a.postAlert(handlers.AlertReceiverPath(am.ID), amBody("g1", "firing", time.Date(2026, 11, 30, 7, 54, 0, 0, time.UTC), time.Time{}, "fp9"), bearer(secret)), 200, nil, nil)
		list, _, _ := s.ListIncidents(ctx, models.IncidentFilter{Limit: 10})
		var alertID int64
		for _, i := range list {
			if i.Title == "HighErrorRate" {
				alertID = i.ID
			}
		}

		get := func(path string) map[string]models.MilestoneSource {
			var body struct {
				Sources map[string]models.MilestoneSource `json:"milestone_sources"`
			}
			a.get("/api/v1"+path).decode(t, &body)
			return body.Sources
		}
		typed := get(typedPath)
		if typed["started_at"].Kind != models.SourceTyped || !strings.Contains(typed["started_at"].Detail, "@example.com") || typed["started_at"].UserID == nil || len(typed) != 4 {
			t.Errorf("typed sources %+v", typed)
		}
		pasted := get(pastedPath)
		if pasted["started_at"].Kind != models.SourcePasted || pasted["detected_at"].Kind != models.SourceTyped {
			t.Errorf("pasted sources %+v: the unchanged start is pasted, the changed detection typed", pasted)
		}
		fromAlert := get("/incidents/" + itoa(alertID))
		if fromAlert["started_at"].Kind != models.SourceAlert || !strings.Contains(fromAlert["started_at"].Detail, "am-prod (alert fp9)") {
			t.Errorf("alert sources %+v", fromAlert)
		}

		check(t, "page marks", a.get("/incidents/"+itoa(alertID)), http.StatusOK, []string{
			`class="badge plain milestone-source source-alert"`, `<span class="sr-only">Source: </span>alert`, `set by alert am-prod (alert fp9)`,
		}, nil)
		check(t, "typed page marks", a.get(typedPath), http.StatusOK, []string{`source-typed`, `typed by `}, []string{`source-alert`})
		check(t, "pasted page marks", a.get(pastedPath), http.StatusOK, []string{`source-pasted`, `read from pasted text`}, nil)

		var all, machine struct {
			TTD struct {
				Total int `json:"total"`
			} `json:"time_to_detect"`
		}
		a.get("/api/v1/insights").decode(t, &all)
		a.get("/api/v1/insights?milestone_sources=machine").decode(t, &machine)
		if all.TTD.Total != 3 || machine.TTD.Total != 1 {
			t.Errorf("insights over %d incidents, %d with machine milestones; want 3 and 1", all.TTD.Total, machine.TTD.Total)
		}
		check(t, "insights page filter", a.get("/insights?milestone_sources=machine"), http.StatusOK, []string{`<option value="machine" selected`}, nil)
		check(t, "bad filter", a.get("/api/v1/insights?milestone_sources=robots"), http.StatusUnprocessableEntity, []string{"milestone_sources"}, nil)
	})
}
