package web_test

import (
	"net/http"

	"golang.org/x/net/html"
	"net/url"
	"strings"
	"testing"
)

func TestSeed000ThroughTheForm(t *testing.T) {
	a := newApp(t)
	path := a.createIncident(seed000Form())
	if path != "/incidents/1" {
		t.Fatalf("redirected to %q", path)
	}
	check(t, "incident page", a.get(path), http.StatusOK, []string{
		"Canada - Multiple Services - Degraded Performance",
		`id="figure-time_to_detect"`, "72 h 54 min", // TTD
		"73 h 45 min",           // TTM
		"74 h 28 min",           // TTR
		"not recorded",          // TTA and latent
		"2026-03-12 16:54 UTC",  // detected, with its zone
		"<strong>cold</strong>", // Markdown rendered
		"Orchestrator", "Action Center", "Canada",
	}, []string{"0 min"})
	check(t, "list", a.get("/incidents"), http.StatusOK, []string{"/incidents/1", "72 h 54 min", "74 h 28 min", "1 incident"}, nil)
}

func TestBSTMilestonesAreStoredInUTC(t *testing.T) {
	a := newApp(t)
	path := a.createIncident(url.Values{
		"title": {"R&R platform outage"}, "severity": {"sev1"}, "status": {"resolved"},
		"time_zone": {"Europe/London"}, "postmortem_state": {"none"},
		"triggered_at": {"2022-04-01T10:00"}, "started_at": {"2022-04-05T08:00"}, "resolved_at": {"2022-04-06T16:30"},
	})
	check(t, "BST incident", a.get(path), http.StatusOK, []string{
		"32 h 30 min", "2022-04-05 08:00 BST", `datetime="2022-04-05T07:00:00Z"`, "94 h", // latent: 1 Apr 10:00 → 5 Apr 08:00
		"R&amp;R platform outage",
	}, nil)
	r := a.json(http.MethodGet, "/api/v1"+path, nil)
	check(t, "API", r, http.StatusOK, []string{`"started_at":"2022-04-05T07:00:00Z"`, `"time_to_resolve_seconds":117000`, `"time_zone":"Europe/London"`}, nil)
	check(t, "edit form shows local time", a.get(path+"/edit"), http.StatusOK, []string{`value="2022-04-05 08:00"`, `<option value="Europe/London" selected>`}, nil)
}

func TestFormErrorsKeepInput(t *testing.T) {
	a := newApp(t)
	longTitle := strings.Repeat("x", 201)
	cases := []struct {
		name    string
		form    url.Values
		want    []string
		notWant []string
	}{
		{"title too long", with(seed000Form(), "title", longTitle), []string{"Must be at most 200 characters.", longTitle, "Routing caches came up **cold**"}, nil},
		{"title missing", with(seed000Form(), "title", "  "), []string{"This field is required."}, nil},
		{"malformed date", with(seed000Form(), "detected_at", "12/03/2026 4pm"), []string{"Not a date and time", `value="12/03/2026 4pm"`}, nil},
		{"unknown severity", with(seed000Form(), "severity", "sev9"), []string{"Must be one of: sev1, sev2, sev3, sev4."}, nil},
		{"unknown zone", with(seed000Form(), "time_zone", "Mars/Olympus"), []string{"Not a known time zone", `value="Mars/Olympus" selected`}, nil},
		{"unknown detection method", with(seed000Form(), "detection_method", "psychic"), []string{"Must be one of"}, nil},
		{"script in title is escaped", with(seed000Form(), "title", "<script>alert(1)</script>", "severity", "bad"), []string{"&lt;script&gt;alert(1)&lt;/script&gt;"}, []string{"<script>alert(1)"}},
	}
	for _, tc := range cases {
		r := a.post("/incidents", tc.form)
		check(t, tc.name, r, http.StatusUnprocessableEntity, append(tc.want, "Nothing was saved"), tc.notWant)
	}
	list := a.get("/incidents")
	check(t, "nothing half-written", list, http.StatusOK, []string{"No incidents yet"}, nil)
}

func TestOutOfOrderMilestonesAreSavedAndFlagged(t *testing.T) {
	a := newApp(t)
	form := with(seed000Form(), "detected_at", "2026-03-09T15:00")
	path := a.createIncident(form)
	check(t, "page flags", a.get(path), http.StatusOK, []string{"Milestones out of order", "Detected is before impact started.", "Invalid:"}, nil)
	check(t, "edit form warns", a.get(path+"/edit"), http.StatusOK, []string{"Detected is before impact started. It will be saved, and flagged."}, nil)
	r := a.json(http.MethodGet, "/api/v1"+path, nil)
	check(t, "API lists invalid", r, http.StatusOK, []string{`"invalid":["time_to_detect"]`, `"time_to_detect_seconds":-3600`}, nil)
}

func TestNestedRecordsOnTheIncidentPage(t *testing.T) {
	a := newApp(t)
	path := a.createIncident(seed000Form())
	steps := []struct {
		name    string
		path    string
		form    url.Values
		status  int
		want    []string
		notWant []string
	}{
		{"add status update", path + "/events", url.Values{"at": {"2026-03-12T16:39"}, "time_zone": {"UTC"}, "kind": {"status_update"}, "status": {"investigating"}, "body": {"Looking into *slowness*"}, "public": {"true"}}, 303, nil, nil},
		{"add event in BST", path + "/events", url.Values{"at": {"2026-03-12T19:00"}, "time_zone": {"Europe/London"}, "kind": {"note"}, "body": {"late note"}}, 303, nil, nil},
		{"event with bad date keeps input", path + "/events", url.Values{"at": {"yesterday"}, "time_zone": {"UTC"}, "kind": {"alert"}, "body": {"keep me"}}, 422, []string{"Not a date and time", "keep me", `<details class="add" open>`}, nil},
		{"status update needs a status", path + "/events", url.Values{"at": {"2026-03-12T16:40"}, "time_zone": {"UTC"}, "kind": {"status_update"}}, 422, []string{"This field is required."}, nil},
		{"unknown kind", path + "/events", url.Values{"at": {"2026-03-12T16:40"}, "time_zone": {"UTC"}, "kind": {"rumour"}}, 422, []string{"Must be one of: status_update"}, nil},
		{"add window", path + "/windows", url.Values{"started_at": {"2026-03-11T08:00"}, "ended_at": {"2026-03-11T12:00"}, "time_zone": {"UTC"}, "level": {"partial_outage"}, "note": {"p99 5 s"}, "services": {"Orchestrator"}}, 303, nil, nil},
		{"window ending before it starts", path + "/windows", url.Values{"started_at": {"2026-03-11T08:00"}, "ended_at": {"2026-03-11T07:00"}, "time_zone": {"UTC"}, "level": {"degraded"}}, 422, []string{"The window ends before it starts."}, nil},
		{"add follow-up", path + "/follow-ups", url.Values{"title": {"Latency alerts for Canada"}, "kind": {"detect"}, "priority": {"p1"}, "status": {"open"}, "owner": {"sre"}, "due_on": {"2026-04-01"}, "tracker_url": {"https://tracker.example/SRE-1"}}, 303, nil, nil},
		{"follow-up with javascript link", path + "/follow-ups", url.Values{"title": {"x"}, "kind": {"detect"}, "priority": {"p1"}, "status": {"open"}, "tracker_url": {"javascript:alert(1)"}}, 422, []string{"Must be an http or https link."}, nil},
		{"follow-up with bad due date", path + "/follow-ups", url.Values{"title": {"x"}, "kind": {"detect"}, "priority": {"p1"}, "status": {"open"}, "due_on": {"soon"}}, 422, []string{"Not a date; write it as 2026-04-30."}, nil},
		{"event on a missing incident", "/incidents/999/events", url.Values{"at": {"2026-03-12T16:39"}, "time_zone": {"UTC"}, "kind": {"note"}}, 404, []string{"There is no such incident."}, nil},
	}
	for _, s := range steps {
		r := a.post(s.path, s.form)
		check(t, s.name, r, s.status, s.want, s.notWant)
	}
	page := a.get(path)
	check(t, "page after adds", page, http.StatusOK, []string{
		"Looking into <em>slowness</em>", "2026-03-12 19:00 UTC", "72 h 39 min", // first public update 16:39
		"Partial outage", "4 h", "p99 5 s", "Latency alerts for Canada", "Due 2026-04-01", `href="https://tracker.example/SRE-1"`,
	}, nil)

	// Edit in place: the edit link opens a form filled with the stored values.
	check(t, "edit event form", a.get(path+"?edit_event=1"), http.StatusOK, []string{`action="/incidents/1/events/1#event-1"`, `value="2026-03-12 16:39"`}, nil)
	check(t, "update event", a.post(path+"/events/1", url.Values{"at": {"2026-03-12T16:45"}, "time_zone": {"UTC"}, "kind": {"status_update"}, "status": {"identified"}, "body": {"edited"}, "public": {"true"}}), 303, nil, nil)
	check(t, "update window", a.post(path+"/windows/1", url.Values{"started_at": {"2026-03-11T08:00"}, "time_zone": {"UTC"}, "level": {"major_outage"}}), 303, nil, nil)
	check(t, "edit follow-up form", a.get(path+"?edit_follow_up=1"), http.StatusOK, []string{`name="version" value="1"`}, nil)
	check(t, "complete follow-up", a.post(path+"/follow-ups/1", url.Values{"title": {"Latency alerts for Canada"}, "kind": {"detect"}, "priority": {"p1"}, "status": {"done"}, "version": {"1"}}), 303, nil, nil)
	check(t, "stale follow-up edit keeps input", a.post(path+"/follow-ups/1", url.Values{"title": {"my stale edit"}, "kind": {"detect"}, "priority": {"p1"}, "status": {"open"}, "version": {"1"}}), 409, []string{"Someone else changed this follow-up", `value="my stale edit"`, `name="version" value="2"`}, nil)
	check(t, "page after edits", a.get(path), http.StatusOK, []string{"72 h 45 min", "Major outage", "(assumed)", "Done"}, []string{"Looking into"})

	for _, del := range []string{"/events/1/delete", "/windows/1/delete", "/follow-ups/1/delete"} {
		check(t, "delete "+del, a.post(path+del, nil), 303, nil, nil)
		check(t, "delete again "+del, a.post(path+del, nil), 404, nil, nil)
	}
	check(t, "page after deletes", a.get(path), http.StatusOK, []string{"No impact windows yet", "No follow-ups yet", "Deleted the follow-up “Latency alerts for Canada”.", ">Undo</button>"}, nil)
	check(t, "the Undo is offered once", a.get(path), http.StatusOK, []string{"No follow-ups yet"}, []string{"Latency alerts for Canada"})
}

func TestIncidentEditAndConflict(t *testing.T) {
	a := newApp(t)
	path := a.createIncident(seed000Form())
	check(t, "save", a.post(path+"/edit", with(seed000Form(), "title", "First edit", "version", "1")), 303, nil, nil)
	r := a.post(path+"/edit", with(seed000Form(), "title", "Second, stale edit", "version", "1"))
	check(t, "stale save", r, http.StatusConflict, []string{"Someone else saved this incident", `value="Second, stale edit"`, `name="version" value="2"`,
		"Where your input and the saved incident differ", `<th scope="row">Title</th><td class="after">Second, stale edit</td><td class="before">First edit</td>`}, nil)
	check(t, "their edit is saved", a.get(path), http.StatusOK, []string{"First edit"}, nil)
	check(t, "invalid edit keeps the version it was given", a.post(path+"/edit", with(seed000Form(), "title", "", "version", "2")), 422, []string{`name="version" value="2"`}, nil)
	check(t, "re-apply", a.post(path+"/edit", with(seed000Form(), "title", "Second, stale edit", "version", "2")), 303, nil, nil)
	check(t, "shown", a.get(path), http.StatusOK, []string{"Second, stale edit"}, nil)
	check(t, "delete", a.post(path+"/delete", nil), 303, nil, nil)
	check(t, "gone", a.get(path), http.StatusNotFound, []string{"There is no such incident."}, nil)
}

func TestRoutes(t *testing.T) {
	a := newApp(t)
	a.createIncident(seed000Form())
	a.createIncident(with(seed000Form(), "title", "Europe auth outage", "severity", "sev1", "regions", "Europe", "services", "Authorization Service", "status", "investigating", "started_at", "2025-11-05T05:45", "detected_at", "2025-11-05T06:05", "mitigated_at", "", "resolved_at", ""))
	cases := []struct {
		path    string
		status  int
		want    []string
		notWant []string
	}{
		{"/", http.StatusFound, nil, nil},
		{"/healthz", 200, []string{`"status":"ok"`}, nil},
		{"/readyz", 200, []string{`"status":"ready"`}, nil},
		{"/static/style.css", 200, nil, nil},
		{"/incidents", 200, []string{"2 incidents", "Canada - Multiple Services", "Europe auth outage"}, nil},
		{"/incidents?severity=sev1", 200, []string{"Europe auth outage", "1 incident"}, []string{"Canada - Multiple"}},
		{"/incidents?status=resolved", 200, []string{"Canada - Multiple"}, []string{"Europe auth outage"}},
		{"/incidents?service=Authorization+Service", 200, []string{"Europe auth outage"}, []string{"Canada - Multiple"}},
		{"/incidents?region=Canada", 200, []string{"Canada - Multiple"}, []string{"Europe auth outage"}},
		{"/incidents?postmortem=published", 200, []string{"No incident matches these filters"}, nil},
		{"/incidents?q=AUTH", 200, []string{"Europe auth outage"}, []string{"Canada - Multiple"}},
		{"/incidents?q=%25%22%27%3Cscript%3E", 200, []string{"No incident matches"}, []string{"<script>"}},
		{"/incidents?page=abc", 200, []string{"2 incidents"}, nil},
		{"/incidents/new", 200, []string{"File an incident", `name="title"`, `name="started_at"`}, nil},
		{"/incidents/1/edit", 200, []string{`value="Canada - Multiple Services - Degraded Performance"`}, nil},
		{"/incidents/999", 404, []string{"Not found"}, nil},
		{"/incidents/abc", 404, nil, nil},
		{"/incidents/999/edit", 404, nil, nil},
		{"/nowhere", 404, []string{"There is no page at this address."}, nil},
	}
	for _, tc := range cases {
		check(t, tc.path, a.get(tc.path), tc.status, tc.want, tc.notWant)
	}
	r := a.get("/incidents")
	for _, h := range []string{"Content-Security-Policy", "X-Content-Type-Options", "Referrer-Policy"} {
		if r.header.Get(h) == "" {
			t.Errorf("missing header %s", h)
		}
	}
}

func TestBodyLimit(t *testing.T) {
	a := newApp(t)
	big := with(seed000Form(), "root_cause", strings.Repeat("a", 1<<20+10))
	check(t, "form over 1 MiB", a.post("/incidents", big), http.StatusRequestEntityTooLarge, []string{"larger than 1 MiB"}, nil)
	check(t, "JSON over 1 MiB", a.json(http.MethodPost, "/api/v1/incidents", `{"title":"`+strings.Repeat("a", 1<<20+10)+`"}`), http.StatusRequestEntityTooLarge, []string{`"error"`}, nil)
}

func TestMarkdownIsSanitised(t *testing.T) {
	a := newApp(t)
	payloads := []string{
		"<script>alert(1)</script>",
		"[click](javascript:alert(1))",
		`<img src=x onerror="alert(1)">`,
		`<svg onload=alert(1)><circle/></svg>`,
		"&lt;script&gt;alert(1)&lt;/script&gt;",
		`<a href="jav&#x09;ascript:alert(1)">x</a>`,
	}
	for _, p := range payloads {
		path := a.createIncident(with(seed000Form(), "title", p, "summary", p, "customer_impact", p, "root_cause", p, "trigger", p, "detection", p, "response", p, "lessons", p))
		a.post(path+"/events", url.Values{"at": {"2026-03-12T16:39"}, "time_zone": {"UTC"}, "kind": {"note"}, "body": {p}})
		a.post(path+"/follow-ups", url.Values{"title": {p}, "kind": {"detect"}, "priority": {"p1"}, "status": {"open"}, "description": {p}, "verification": {p}})
		a.post(path+"/windows", url.Values{"started_at": {"2026-03-11T08:00"}, "time_zone": {"UTC"}, "level": {"degraded"}, "note": {p}})
		for _, page := range []string{path, "/incidents", path + "/edit"} {
			if live := liveMarkup(t, a.get(page).body); len(live) > 0 {
				t.Errorf("payload %q on %s: live markup %v", p, page, live)
			}
		}
	}
}

// ownPicture tells Hindsight's own server-drawn SVG pictures, which carry role="img", from an
// injected <svg>.
func ownPicture(tok html.Token) bool {
	for _, attr := range tok.Attr {
		if attr.Key == "role" && attr.Val == "img" {
			return true
		}
	}
	return false
}

// ownScript tells Hindsight's own script files (static/forms.js, when.js, images.js), loaded by src and run under the
// Content-Security-Policy, from an injected <script>.
func ownScript(tok html.Token) bool {
	for _, attr := range tok.Attr {
		if attr.Key == "src" && (attr.Val == "/static/forms.js" || attr.Val == "/static/htmx.min.js" || attr.Val == "/static/when.js" || attr.Val == "/static/images.js") {
			return true
		}
	}
	return false
}

// liveMarkup parses a page and lists what could run: script and svg elements, event-handler
// attributes and links or sources with a javascript: URL. Escaped text is harmless and ignored.
func liveMarkup(t *testing.T, page string) []string {
	t.Helper()
	var live []string
	z := html.NewTokenizer(strings.NewReader(page))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return live
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			if (tok.Data == "script" && !ownScript(tok)) || tok.Data == "iframe" || tok.Data == "object" || (tok.Data == "svg" && !ownPicture(tok)) {
				live = append(live, "<"+tok.Data+">")
			}
			for _, attr := range tok.Attr {
				value := strings.ToLower(strings.Join(strings.Fields(attr.Val), ""))
				if strings.HasPrefix(attr.Key, "on") || strings.HasPrefix(value, "javascript:") {
					live = append(live, tok.Data+" "+attr.Key+"="+attr.Val)
				}
			}
		}
	}
}
