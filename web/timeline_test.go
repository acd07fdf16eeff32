package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

func eventForm(kv ...string) url.Values {
	return with(url.Values{"at": {"2026-03-12T16:39"}, "time_zone": {"UTC"}, "kind": {"status_update"}, "status": {"investigating"}}, kv...)
}

// TestTimelineEntriesAreInternalByDefault: the add form leaves "Shown to customers" unticked and
// says plainly, on a public incident, that a ticked entry appears on the status page now; the
// API keeps an entry internal unless it says public.
func TestTimelineEntriesAreInternalByDefault(t *testing.T) {
	a := newApp(t)
	public := a.createIncident(with(seed000Form(), "public", "true"))
	private := a.createIncident(with(seed000Form(), "title", "Private one"))

	page := a.get(public)
	check(t, "public incident form", page, http.StatusOK, []string{
		`id="ev-new-public" type="checkbox" name="public" value="true" aria-describedby`,
		"This will appear on the status page now.", "Unticked, it stays internal.",
	}, []string{`id="ev-new-public" type="checkbox" name="public" value="true" checked`})
	check(t, "private incident form", a.get(private), http.StatusOK,
		[]string{"Ticked, it appears on the status page once the incident is made public."},
		[]string{"This will appear on the status page now.", `name="public" value="true" checked`})

	// An entry posted without the box is internal, and not on the status page or its feed.
	check(t, "entry without the box", a.post(public+"/events", eventForm("body", "Internal: ACME escalated")), http.StatusSeeOther, nil, nil)
	check(t, "entry with the box", a.post(public+"/events", eventForm("at", "2026-03-12T17:00", "body", "We are looking into it.", "public", "true")), http.StatusSeeOther, nil, nil)
	id := strings.TrimPrefix(public, "/incidents/")
	for _, p := range []string{"/status/incidents/" + id, "/status/feed.atom"} {
		check(t, p, a.anonymous().get(p), http.StatusOK, []string{"We are looking into it."}, []string{"ACME"})
	}
	// The public entry is marked on the incident page in words, the internal one is not.
	body := a.get(public).body
	if n := strings.Count(body, `<span class="badge public"`); n != 1 {
		t.Errorf("%d Public badges on the incident page, want 1 (the ticked entry)", n)
	}
	if !strings.Contains(body, `<span class="badge public" title="Shown to customers: it is on the status page">Public</span>`) {
		t.Error("the public entry has no Public badge with words")
	}

	// The API: public only when sent.
	r := a.json(http.MethodPost, "/api/v1/incidents", `{"title": "API one", "severity": "sev3", "status": "investigating", "public": true,
		"timeline": [{"at": "2026-03-17T08:10:00Z", "kind": "status_update", "status": "investigating", "body": "unsaid"}]}`)
	check(t, "api default", r, http.StatusCreated, []string{`"body":"unsaid","public":false`}, nil)
}

// TestNotesAreNeverPublic: a note sent as public is refused with a message beside the box, the
// input kept, and with 422 in the API.
func TestNotesAreNeverPublic(t *testing.T) {
	a := newApp(t)
	path := a.createIncident(with(seed000Form(), "public", "true"))
	r := a.post(path+"/events", eventForm("kind", "note", "status", "", "body", "INTERNAL: Customer ACME escalated", "public", "true"))
	check(t, "public note", r, http.StatusUnprocessableEntity, []string{
		`<p class="field-error" id="ev-new-public-error">A note is internal and never shown to customers`,
		"INTERNAL: Customer ACME escalated", `<details class="add" open>`,
	}, nil)
	check(t, "nothing saved", a.get(path), http.StatusOK, []string{"No timeline yet"}, nil)

	r = a.json(http.MethodPost, "/api/v1/incidents", `{"title": "API note", "severity": "sev3", "status": "investigating", "public": true,
		"timeline": [{"at": "2026-03-17T08:10:00Z", "kind": "note", "body": "INTERNAL", "public": true}]}`)
	check(t, "api public note", r, http.StatusUnprocessableEntity, []string{`"field":"timeline[0].public"`, "never shown to customers"}, nil)
	r = a.json(http.MethodPost, "/api/v1/incidents", `{"title": "API note", "severity": "sev3", "status": "investigating", "public": true,
		"timeline": [{"at": "2026-03-17T08:10:00Z", "kind": "note", "body": "INTERNAL"}]}`)
	check(t, "api internal note", r, http.StatusCreated, []string{`"kind":"note","body":"INTERNAL","public":false`}, nil)
}

// TestStatusPostedDefault: "Status posted" defaults to the latest status update's status (the
// entry before one added at the end), investigating without any, never the incident's own
// status.
func TestStatusPostedDefault(t *testing.T) {
	a := newApp(t)
	path := a.createIncident(seed000Form()) // resolved
	selected := regexp.MustCompile(`id="ev-new-status"[^>]*>(?:<option[^>]*>[^<]*</option>)*?<option value="([a-z_]+)" selected>`)
	status := func(name string) string {
		m := selected.FindStringSubmatch(a.get(path).body)
		if m == nil {
			t.Fatalf("%s: no status chosen in the add form", name)
		}
		return m[1]
	}
	if got := status("no updates"); got != "investigating" {
		t.Errorf("with no updates the form posts %q, want investigating", got)
	}
	a.post(path+"/events", eventForm("at", "2026-03-12T18:11", "status", "monitoring"))
	a.post(path+"/events", eventForm("at", "2026-03-12T16:39", "status", "identified"))         // earlier in time
	a.post(path+"/events", eventForm("at", "2026-03-12T18:30", "kind", "action", "status", "")) // not a status update
	if got := status("after updates"); got != "monitoring" {
		t.Errorf("after updates the form posts %q, want monitoring (the latest in time)", got)
	}
	check(t, "times for the script", a.get(path), http.StatusOK,
		[]string{`data-status-updates="[[&#34;2026-03-12 16:39&#34;,&#34;identified&#34;],[&#34;2026-03-12 18:11&#34;,&#34;monitoring&#34;]]"`, `data-zone="UTC"`, `<script src="/static/forms.js" defer></script>`}, nil)
	js := a.get("/static/forms.js")
	check(t, "script", js, http.StatusOK, []string{"data-status-updates", "Status posted"}, nil)
	if ct := js.header.Get("Content-Type"); !strings.Contains(ct, "javascript") {
		t.Errorf("forms.js served as %q", ct)
	}
}
