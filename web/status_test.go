package web_test

import (
	"encoding/json"
	"encoding/xml"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestStatusPageIsPublic(t *testing.T) {
	admin := newApp(t)
	admin.loadDemo()
	private := admin.createIncident(with(seed000Form(), "title", "A private incident"))
	anonymous := admin.anonymous()

	check(t, "status page", anonymous.get("/status"), http.StatusOK,
		[]string{"All Systems Operational", "Components", "Past incidents", "Canada: slow responses and timeouts after the gateway cutover", "March 2026", "Action Center", "Operational"},
		[]string{"A private incident", "Sign out", "/incidents/new", "File an incident"})
	check(t, "public incident", anonymous.get("/status/incidents/1"), http.StatusOK,
		[]string{"Customer Impact", "Root Cause", "Detection", "Response", "Follow-up",
			"Detected 3 days 54 minutes after impact began.", "Services in Canada have recovered."},
		[]string{"Sign out", "Lessons", "Trigger"})
	check(t, "private incident", anonymous.get("/status"+private), http.StatusNotFound, []string{"There is no public incident at this address."}, []string{"A private incident"})
	check(t, "no such incident", anonymous.get("/status/incidents/9999"), http.StatusNotFound, nil, nil)
	check(t, "not an id", anonymous.get("/status/incidents/abc"), http.StatusNotFound, nil, nil)
	check(t, "history", anonymous.get("/status/history"), http.StatusOK, []string{"Incident history", "March 2026", "August 2022"}, []string{"A private incident"})
	check(t, "the internal pages stay closed", anonymous.get("/incidents"), http.StatusSeeOther, nil, nil)
	check(t, "the internal API stays closed", anonymous.get("/api/v1/incidents"), http.StatusUnauthorized, nil, nil)
	if r := anonymous.get("/status"); r.header.Get("Set-Cookie") != "" {
		t.Errorf("the status page set a cookie: %s", r.header.Get("Set-Cookie"))
	}

	feed := anonymous.get("/status/feed.atom")
	check(t, "feed", feed, http.StatusOK, []string{"Canada: slow responses", "/status/incidents/1"}, []string{"A private incident"})
	var atom struct {
		Entries []struct {
			Title string `xml:"title"`
		} `xml:"entry"`
	}
	if err := xml.Unmarshal([]byte(feed.body), &atom); err != nil || len(atom.Entries) != 5 {
		t.Errorf("feed: %d entries, %v", len(atom.Entries), err)
	}
	if ct := feed.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/atom+xml") {
		t.Errorf("feed content type %q", ct)
	}
}

// TestStatusPageFollowsChanges proves the cached answers change as soon as the records do.
func TestStatusPageFollowsChanges(t *testing.T) {
	admin := newApp(t)
	path := admin.createIncident(with(seed000Form(), "public", "true", "status", "investigating", "mitigated_at", "", "resolved_at", ""))
	admin.addComponent("Orchestrator", "Orchestrator")
	anonymous := admin.anonymous()
	check(t, "open", anonymous.get("/status/api/v2/incidents/unresolved.json"), http.StatusOK, []string{"Canada - Multiple Services"}, []string{"Working on a fix"})
	first := anonymous.get("/status/api/v2/incidents.json")
	etag := first.header.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	admin.post(path+"/events", url.Values{"at": {"2026-03-12T17:00"}, "time_zone": {"UTC"}, "kind": {"status_update"}, "status": {"identified"}, "body": {"Working on a fix."}, "public": {"true"}})
	admin.post(path+"/windows", url.Values{"started_at": {"2026-03-12T16:00"}, "time_zone": {"UTC"}, "level": {"major_outage"}})
	check(t, "update shows at once", anonymous.get("/status/api/v2/incidents/unresolved.json"), http.StatusOK, []string{"Working on a fix"}, nil)
	check(t, "the page too", anonymous.get("/status"), http.StatusOK, []string{"Open incidents", "Working on a fix", "Major outage", "Major Service Outage"}, nil)

	req := anonymous.get("/status/api/v2/incidents.json")
	if req.header.Get("ETag") == etag {
		t.Error("the ETag did not change with the content")
	}
	notModified := anonymous.doWith(http.MethodGet, "/status/api/v2/incidents.json", nil, map[string]string{"If-None-Match": req.header.Get("ETag")})
	if notModified.status != http.StatusNotModified {
		t.Errorf("If-None-Match: status %d", notModified.status)
	}

	// Settings name the page and set its zone.
	check(t, "settings", admin.post("/admin/settings", url.Values{"name": {"Acme status"}, "time_zone": {"Europe/London"}}), http.StatusSeeOther, nil, nil)
	check(t, "renamed", anonymous.get("/status"), http.StatusOK, []string{"Acme status", "Times are in Europe/London"}, nil)
	check(t, "renamed JSON", anonymous.get("/status/api/v2/status.json"), http.StatusOK, []string{`"name":"Acme status"`, `"time_zone":"Europe/London"`, `"indicator":"critical"`}, nil)
	check(t, "bad zone", admin.post("/admin/settings", url.Values{"name": {"Acme status"}, "time_zone": {"Mars/Olympus"}}), http.StatusUnprocessableEntity,
		[]string{"Not a known time zone", "Nothing was saved"}, nil)
	check(t, "no name", admin.post("/admin/settings", url.Values{"name": {" "}, "time_zone": {"UTC"}}), http.StatusUnprocessableEntity, []string{"This field is required."}, nil)
	check(t, "settings page", admin.get("/admin/settings"), http.StatusOK, []string{"Acme status", "Europe/London"}, nil)
}

// keys lists an object's field names.
func keys(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("not an object: %.200s", raw)
	}
	return slices.Sorted(maps.Keys(m))
}

// Field names of Statuspage v2 as GitHub's status page serves them (see ../shared/data/statuspage):
// the test below also compares with those files when they are there.
var (
	statuspageIncidentKeys  = []string{"components", "created_at", "id", "impact", "incident_updates", "monitoring_at", "name", "page_id", "reminder_intervals", "resolved_at", "shortlink", "started_at", "status", "updated_at"}
	statuspageUpdateKeys    = []string{"affected_components", "body", "created_at", "custom_tweet", "deliver_notifications", "display_at", "id", "incident_id", "status", "tweet_id", "updated_at"}
	statuspageComponentKeys = []string{"created_at", "description", "group", "group_id", "id", "name", "only_show_if_degraded", "page_id", "position", "showcase", "start_date", "status", "updated_at"}
	statuspagePageKeys      = []string{"id", "name", "time_zone", "updated_at", "url"}
	statuspageSummaryKeys   = []string{"components", "incidents", "page", "scheduled_maintenances", "status"}
	// Statuspage's own extras that Hindsight does not keep: tweets, notification flags, reminders.
	notKept = []string{"custom_tweet", "deliver_notifications", "reminder_intervals", "tweet_id"}
	// Statuspage sends these only for an incident with a postmortem.
	postmortemKeys = []string{"postmortem_body", "postmortem_published_at"}
)

// sameKeys checks that Hindsight sends every field Statuspage does, but for those it does not
// keep, and no field Statuspage does not have.
func sameKeys(t *testing.T, what string, got, real []string, extra ...string) {
	t.Helper()
	for _, k := range real {
		if !slices.Contains(got, k) && !slices.Contains(notKept, k) {
			t.Errorf("%s lacks Statuspage's %q (has %v)", what, k, got)
		}
	}
	for _, k := range got {
		if !slices.Contains(real, k) && !slices.Contains(extra, k) {
			t.Errorf("%s has %q, which Statuspage does not", what, k)
		}
	}
}

func TestStatuspageAPIShape(t *testing.T) {
	admin := newApp(t)
	admin.loadDemo()
	path := admin.createIncident(with(seed000Form(), "public", "true", "status", "monitoring", "title", "Open and public", "mitigated_at", "", "resolved_at", ""))
	admin.post(path+"/events", url.Values{"at": {"2026-03-12T17:00"}, "time_zone": {"UTC"}, "kind": {"status_update"}, "status": {"monitoring"}, "body": {"A fix is out."}, "public": {"true"}})
	admin.post(path+"/windows", url.Values{"started_at": {"2026-03-12T16:00"}, "time_zone": {"UTC"}, "level": {"partial_outage"}, "services": {"Orchestrator"}})
	anonymous := admin.anonymous()

	// Compare with the real files when they are at hand; the lists above otherwise.
	if raw, err := os.ReadFile("../../shared/data/statuspage/github_incidents_latest50.json"); err == nil {
		var doc struct {
			Page      json.RawMessage   `json:"page"`
			Incidents []json.RawMessage `json:"incidents"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		var inc struct {
			Updates    []json.RawMessage `json:"incident_updates"`
			Components []json.RawMessage `json:"components"`
		}
		_ = json.Unmarshal(doc.Incidents[0], &inc)
		for _, c := range []struct {
			name      string
			got, want []string
		}{
			{"incident", keys(t, doc.Incidents[0]), statuspageIncidentKeys},
			{"update", keys(t, inc.Updates[0]), statuspageUpdateKeys},
			{"page", keys(t, doc.Page), statuspagePageKeys},
		} {
			if !slices.Equal(c.got, c.want) {
				t.Errorf("GitHub's %s keys are %v, the test assumes %v", c.name, c.got, c.want)
			}
		}
	}
	if raw, err := os.ReadFile("../../shared/data/statuspage/github_summary.json"); err == nil {
		var doc struct {
			Components []json.RawMessage `json:"components"`
		}
		_ = json.Unmarshal(raw, &doc)
		if got := keys(t, raw); !slices.Equal(got, statuspageSummaryKeys) {
			t.Errorf("GitHub's summary keys are %v", got)
		}
		if got := keys(t, doc.Components[0]); !slices.Equal(got, statuspageComponentKeys) {
			t.Errorf("GitHub's component keys are %v", got)
		}
	}

	var summary struct {
		Page       json.RawMessage   `json:"page"`
		Components []json.RawMessage `json:"components"`
		Incidents  []json.RawMessage `json:"incidents"`
		Scheduled  []json.RawMessage `json:"scheduled_maintenances"`
		Status     struct {
			Indicator   string `json:"indicator"`
			Description string `json:"description"`
		} `json:"status"`
	}
	r := anonymous.get("/status/api/v2/summary.json")
	check(t, "summary.json", r, http.StatusOK, nil, nil)
	if r.header.Get("Access-Control-Allow-Origin") != "*" || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		t.Errorf("summary.json headers: %v", r.header)
	}
	r.decode(t, &summary)
	sameKeys(t, "summary", keys(t, json.RawMessage(r.body)), statuspageSummaryKeys)
	sameKeys(t, "page", keys(t, summary.Page), statuspagePageKeys)
	if len(summary.Components) == 0 || len(summary.Incidents) != 1 || summary.Scheduled == nil {
		t.Fatalf("summary: %d components, %d incidents", len(summary.Components), len(summary.Incidents))
	}
	sameKeys(t, "component", keys(t, summary.Components[0]), statuspageComponentKeys)
	if summary.Status.Indicator != "major" || summary.Status.Description != "Partial System Outage" {
		t.Errorf("status = %+v", summary.Status)
	}
	statuses := map[string]string{}
	for _, c := range summary.Components {
		var comp struct{ Name, Status string }
		_ = json.Unmarshal(c, &comp)
		statuses[comp.Name] = comp.Status
	}
	if statuses["Orchestrator"] != "partial_outage" || statuses["Action Center"] != "operational" {
		t.Errorf("component statuses = %v", statuses)
	}

	var doc struct {
		Page      json.RawMessage   `json:"page"`
		Incidents []json.RawMessage `json:"incidents"`
	}
	anonymous.get("/status/api/v2/incidents.json").decode(t, &doc)
	if len(doc.Incidents) != 6 {
		t.Fatalf("incidents.json lists %d incidents", len(doc.Incidents))
	}
	sameKeys(t, "page", keys(t, doc.Page), statuspagePageKeys)
	published := 0
	for _, raw := range doc.Incidents {
		var inc struct {
			PostmortemBody string            `json:"postmortem_body"`
			Updates        []json.RawMessage `json:"incident_updates"`
		}
		_ = json.Unmarshal(raw, &inc)
		var fields struct{ Status, Impact string }
		_ = json.Unmarshal(raw, &fields)
		sameKeys(t, "incident", keys(t, raw), statuspageIncidentKeys, postmortemKeys...)
		if !slices.Contains([]string{"investigating", "identified", "monitoring", "resolved", "postmortem"}, fields.Status) ||
			!slices.Contains([]string{"none", "minor", "major", "critical"}, fields.Impact) {
			t.Errorf("status %q, impact %q", fields.Status, fields.Impact)
		}
		for _, u := range inc.Updates {
			sameKeys(t, "update", keys(t, u), statuspageUpdateKeys)
		}
		if inc.PostmortemBody != "" {
			published++
			for _, section := range []string{"## Customer Impact", "## Root Cause", "## Detection", "## Response"} {
				if !strings.Contains(inc.PostmortemBody, section) {
					t.Errorf("postmortem_body lacks %s", section)
				}
			}
		}
	}
	if published != 5 {
		t.Errorf("%d incidents carry a postmortem_body, want the 5 published samples", published)
	}
	check(t, "unresolved.json", anonymous.get("/status/api/v2/incidents/unresolved.json"), http.StatusOK, []string{`"name":"Open and public"`, `"status":"monitoring"`, "A fix is out."}, []string{"Canada: slow responses"})
	check(t, "status.json", anonymous.get("/status/api/v2/status.json"), http.StatusOK, []string{`"indicator":"major"`, `"description":"Partial System Outage"`}, []string{"incidents"})
	check(t, "components.json", anonymous.get("/status/api/v2/components.json"), http.StatusOK, []string{`"name":"Orchestrator","status":"partial_outage"`}, nil)
}

// TestNothingInternalReachesTheStatusPage puts a secret in every field the public must not see,
// before and after publishing, and reads every public page, feed and document for them.
func TestNothingInternalReachesTheStatusPage(t *testing.T) {
	admin := newApp(t)
	form := with(seed000Form(), "public", "true", "status", "monitoring",
		"summary", "The public summary.", "customer_impact", "Public impact.", "root_cause", "Public cause.",
		"detection", "Public detection.", "response", "Public response.",
		"trigger", "SECRET-trigger", "lessons", "SECRET-lessons", "services", "Orchestrator",
		"postmortem_state", "draft")
	path := admin.createIncident(form)
	admin.post(path+"/events", url.Values{"at": {"2026-03-12T16:39"}, "time_zone": {"UTC"}, "kind": {"status_update"}, "status": {"investigating"}, "body": {"We are looking into slow pages."}, "public": {"true"}})
	admin.post(path+"/events", url.Values{"at": {"2026-03-12T16:45"}, "time_zone": {"UTC"}, "kind": {"note"}, "body": {"SECRET-internal-note"}})
	admin.post(path+"/events", url.Values{"at": {"2026-03-12T16:50"}, "time_zone": {"UTC"}, "kind": {"status_update"}, "status": {"identified"}, "body": {"SECRET-unposted-update"}})
	admin.post(path+"/windows", url.Values{"started_at": {"2026-03-12T16:00"}, "time_zone": {"UTC"}, "level": {"degraded"}, "note": {"SECRET-window-note"}})
	admin.post(path+"/follow-ups", url.Values{"title": {"Warm the caches"}, "kind": {"prevent"}, "priority": {"p1"}, "status": {"open"},
		"description": {"SECRET-follow-up-description"}, "owner": {"SECRET-owner"}, "verification": {"SECRET-verification"}, "tracker_url": {"https://tracker.example/SECRET-tracker"}})
	admin.post(path+"/follow-ups", url.Values{"title": {"SECRET-dropped-follow-up"}, "kind": {"process"}, "priority": {"p3"}, "status": {"wont_do"}})
	// A private incident: none of it, not even its service, is public.
	admin.createIncident(with(seed000Form(), "title", "SECRET-private-title", "services", "SECRET-private-service", "status", "investigating", "root_cause", "SECRET-private-cause"))

	anonymous := admin.anonymous()
	publicPaths := []string{"/status", "/status/history", "/status" + path, "/status/incidents/2", "/status/feed.atom",
		"/status/api/v2/summary.json", "/status/api/v2/status.json", "/status/api/v2/components.json",
		"/status/api/v2/incidents.json", "/status/api/v2/incidents/unresolved.json"}
	read := func(stage string, want []string, notWant []string) {
		t.Helper()
		all := ""
		for _, p := range publicPaths {
			r := anonymous.get(p)
			for _, secret := range append([]string{"SECRET"}, notWant...) {
				if strings.Contains(r.body, secret) {
					i := strings.Index(r.body, secret)
					t.Errorf("%s: %s shows %q: …%s…", stage, p, secret, r.body[max(0, i-80):min(len(r.body), i+80)])
				}
			}
			all += r.body
		}
		for _, w := range want {
			if !strings.Contains(all, w) {
				t.Errorf("%s: no public page shows %q", stage, w)
			}
		}
	}
	// A draft shows its public updates, nothing of the postmortem.
	read("draft", []string{"Canada - Multiple Services", "We are looking into slow pages.", "Orchestrator"},
		[]string{"The public summary.", "Public cause.", "Public impact.", "Warm the caches"})

	preview := admin.get(path + "/postmortem")
	admin.post(path+"/postmortem/state", url.Values{"state": {"published"}, "publish_anyway": {"true"}, "reason": {"The test publishes over the completeness check."}, "version": {pageVersion(t, preview)}})
	read("published", []string{"The public summary.", "Public impact.", "Public cause.", "Public detection.", "Public response.", "Warm the caches"}, nil)

	// Edits after publishing stay inside until an admin publishes again.
	edit := admin.get(path + "/edit")
	admin.post(path+"/edit", with(form, "postmortem_state", "published", "version", pageVersion(t, edit),
		"summary", "SECRET-summary-draft", "customer_impact", "SECRET-impact-draft", "root_cause", "SECRET-cause-draft",
		"detection", "SECRET-detection-draft", "response", "SECRET-response-draft"))
	admin.post(path+"/follow-ups", url.Values{"title": {"SECRET-new-follow-up"}, "kind": {"detect"}, "priority": {"p2"}, "status": {"open"}})
	read("edited after publishing", []string{"The public summary.", "Public cause."}, nil)
}

// TestPublicPagesAnswerHead sends HEAD, as uptime checkers and feed readers do, to the public
// pages over a real server: the headers of a GET and no body. Pages behind sign-in still refuse it.
func TestPublicPagesAnswerHead(t *testing.T) {
	admin := newApp(t)
	admin.loadDemo()
	server := httptest.NewServer(admin.e)
	defer server.Close()
	for path, contentType := range map[string]string{
		"/status":                         "text/html",
		"/status/incidents/1":             "text/html",
		"/status/feed.atom":               "application/atom+xml",
		"/status/api/v2/incidents.json":   "application/json",
		"/status/api/v2/summary.json":     "application/json",
		"/healthz":                        "",
		"/status/api/v2/no-such-api.json": "",
	} {
		r, err := http.Head(server.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(r.Body)
		r.Body.Close()
		want := http.StatusOK
		if strings.Contains(path, "no-such") {
			want = http.StatusNotFound
		}
		if r.StatusCode != want || len(body) != 0 || !strings.HasPrefix(r.Header.Get("Content-Type"), contentType) {
			t.Errorf("HEAD %s: status %d, %d bytes, Content-Type %q; want %d, none, %q", path, r.StatusCode, len(body), r.Header.Get("Content-Type"), want, contentType)
		}
	}
	r, err := http.Head(server.URL + "/incidents")
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("HEAD /incidents: status %d, want 405", r.StatusCode)
	}
}
