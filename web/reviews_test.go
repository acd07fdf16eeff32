package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"hindsight/models"
)

// namedAccount is an account of the test server with a name, signed in.
type namedAccount struct {
	*app
	id    int64
	email string
}

// account creates a named account with the role and signs it in.
func (a *app) account(name, role string) namedAccount {
	a.t.Helper()
	email := strings.ToLower(strings.ReplaceAll(name, " ", ".")) + "@example.com"
	u, err := a.store.CreateUser(context.Background(), models.UserInput{Email: email, Name: name, Role: role, Password: testPassword})
	if err != nil {
		a.t.Fatal(err)
	}
	c := a.anonymous()
	c.login(email, testPassword)
	return namedAccount{c, u.ID, email}
}

var threadPath = regexp.MustCompile(`/review/threads/(\d+)/replies`)

// Responders ask accounts for a review and comment on sections in threads, which they reply to
// and resolve; only a reviewer asked approves, and may withdraw; the publish page shows who
// approves and asks for an approval or a reason; nothing of it is public.
func TestReviewRoutes(t *testing.T) {
	eachDB(t, func(t *testing.T, admin *app) {
		path := admin.createIncident(with(seed000Form(), "public", "true"))
		rita := admin.account("Rita Reviewer", "responder")
		omar := admin.account("Omar Other", "responder")
		viewer := admin.as("viewer")

		check(t, "the review page", viewer.get(path+"/review"), http.StatusOK,
			[]string{"Nobody is asked to review", "Root cause", "Routing caches came up <strong>cold</strong>"}, []string{"Ask for a review"})
		check(t, "viewers cannot ask", viewer.post(path+"/review/requests", url.Values{"reviewers": {itoa(rita.id)}}), http.StatusForbidden, nil, nil)
		check(t, "nobody chosen", omar.post(path+"/review/requests", url.Values{}), http.StatusUnprocessableEntity, []string{"Choose at least one account"}, nil)
		check(t, "an unknown account", omar.post(path+"/review/requests", url.Values{"reviewers": {"99999"}}), http.StatusUnprocessableEntity, []string{"Choose accounts from the list"}, nil)
		check(t, "no CSRF token", omar.postRaw(path+"/review/requests", url.Values{"reviewers": {itoa(rita.id)}}), http.StatusForbidden, nil, nil)
		check(t, "ask Rita", omar.post(path+"/review/requests", url.Values{"reviewers": {itoa(rita.id)}}), http.StatusSeeOther, nil, nil)
		check(t, "asked again changes nothing", omar.post(path+"/review/requests", url.Values{"reviewers": {itoa(rita.id)}}), http.StatusSeeOther, nil, nil)

		check(t, "the publish page asks for an approval", admin.get(path+"/postmortem"), http.StatusOK,
			[]string{"No reviewer approved the postmortem", "Rita Reviewer", "not yet"}, nil)
		check(t, "someone not asked cannot approve", omar.post(path+"/review/approval", url.Values{"approve": {"true"}}), http.StatusForbidden, nil, nil)

		check(t, "an empty comment", rita.post(path+"/review/threads", url.Values{"section": {"root_cause"}, "body": {"  "}}),
			http.StatusUnprocessableEntity, []string{"Write the comment."}, nil)
		check(t, "no such section", rita.post(path+"/review/threads", url.Values{"section": {"nope"}, "body": {"Hm"}}),
			http.StatusUnprocessableEntity, []string{"Choose a section of this postmortem."}, nil)
		check(t, "viewers cannot comment", viewer.post(path+"/review/threads", url.Values{"section": {"root_cause"}, "body": {"Hm"}}), http.StatusForbidden, nil, nil)
		check(t, "comment", rita.post(path+"/review/threads", url.Values{"section": {"root_cause"}, "body": {"Which restart? <script>alert(1)</script> **cold** how?"}}),
			http.StatusSeeOther, nil, nil)
		page := rita.get(path + "/review")
		check(t, "the thread, sanitised", page, http.StatusOK, []string{"Which restart?", "<strong>cold</strong>", "Open", "Rita Reviewer"}, []string{"<script>alert"})
		m := threadPath.FindStringSubmatch(page.body)
		if m == nil {
			t.Fatal("no reply form on the review page")
		}
		thread := m[1]
		check(t, "an empty reply keeps the thread", omar.post(path+"/review/threads/"+thread+"/replies", url.Values{"body": {""}}),
			http.StatusUnprocessableEntity, []string{"Write the comment."}, nil)
		check(t, "reply", omar.post(path+"/review/threads/"+thread+"/replies", url.Values{"body": {"The 16:00 router restart."}}), http.StatusSeeOther, nil, nil)
		check(t, "a thread of another incident", omar.post("/incidents/99999/review/threads/"+thread+"/replies", url.Values{"body": {"x"}}), http.StatusNotFound, nil, nil)
		check(t, "resolve", omar.post(path+"/review/threads/"+thread+"/resolve", url.Values{"resolved": {"true"}}), http.StatusSeeOther, nil, nil)
		check(t, "resolved", rita.get(path+"/review"), http.StatusOK, []string{"The 16:00 router restart.", "Resolved", "0 open threads"}, nil)

		check(t, "Rita approves", rita.post(path+"/review/approval", url.Values{"approve": {"true"}}), http.StatusSeeOther, nil, nil)
		check(t, "the publish page shows it", admin.get(path+"/postmortem"), http.StatusOK, []string{"approves"}, []string{"No reviewer approved"})
		check(t, "withdraw", rita.post(path+"/review/approval", url.Values{"approve": {"false"}}), http.StatusSeeOther, nil, nil)
		check(t, "withdrawn", admin.get(path+"/postmortem"), http.StatusOK, []string{"No reviewer approved"}, nil)
		check(t, "approve again", rita.post(path+"/review/approval", url.Values{"approve": {"true"}}), http.StatusSeeOther, nil, nil)
		check(t, "the history keeps approvals", admin.get(path+"/history"), http.StatusOK, []string{"Rita Reviewer"}, nil)

		check(t, "publish", admin.setState(path, "published"), http.StatusSeeOther, nil, nil)
		public := admin.anonymous()
		check(t, "the status page", public.get("/status"+path), http.StatusOK, []string{"Routing caches"}, []string{"Which restart", "router restart", "Rita"})
		check(t, "the public API", public.get("/status/api/v2/incidents.json"), http.StatusOK, nil, []string{"Which restart", "Rita"})
		check(t, "the review is not public", public.get(path+"/review"), http.StatusSeeOther, nil, nil)
		check(t, "no review in the Markdown export", admin.get(path+"/export.md"), http.StatusOK, nil, []string{"Which restart"})
	})
}

// The debrief is scheduled with everyone named in the incident suggested, its .ics parses with
// the python icalendar library, the notes are kept sanitised with a preview, and the questions
// stand beside the entries they ask about.
func TestDebriefRoutes(t *testing.T) {
	eachDB(t, func(t *testing.T, admin *app) {
		priya := admin.account("Priya Raman", "responder")
		sam := admin.account("Sam Ortiz", "viewer")
		fran := admin.account("Fran Facilitator", "responder")
		path := admin.createIncident(seed000Form())
		check(t, "follow-up owned by Priya", admin.post(path+"/follow-ups", url.Values{"title": {"Warm caches"}, "kind": {"prevent"}, "priority": {"p1"},
			"status": {"open"}, "owner": {"Priya Raman"}}), http.StatusSeeOther, nil, nil)
		check(t, "an alert entry", admin.post(path+"/events", url.Values{"at": {"2026-03-12 16:50"}, "time_zone": {"UTC"}, "kind": {"alert"},
			"body": {"p99 latency alert fired for Canada"}}), http.StatusSeeOther, nil, nil)
		check(t, "an action naming Sam", admin.post(path+"/events", url.Values{"at": {"2026-03-12 17:40"}, "time_zone": {"UTC"}, "kind": {"action"},
			"body": {"Sam Ortiz rolled back the router config"}}), http.StatusSeeOther, nil, nil)

		page := fran.get(path + "/debrief")
		check(t, "the form", page, http.StatusOK, []string{"Schedule the debrief", "named in the incident",
			"What did the alert tell you? What did you expect it to tell you?", "p99 latency alert fired for Canada",
			"What options did you see? What made this one look right at the time?", "Sam Ortiz rolled back the router config"}, nil)
		for _, id := range []int64{priya.id, sam.id} {
			if !regexp.MustCompile(`value="` + itoa(id) + `" checked`).MatchString(page.body) {
				t.Errorf("account %d named in the incident is not suggested", id)
			}
		}
		if regexp.MustCompile(`value="` + itoa(fran.id) + `" checked`).MatchString(page.body) {
			t.Error("the facilitator, not named in the incident, is suggested as a participant")
		}
		check(t, "the .ics before scheduling", fran.get(path+"/debrief.ics"), http.StatusNotFound, nil, nil)
		schedule := url.Values{"starts_at": {"2026-03-16 15:00"}, "time_zone": {"Europe/Berlin"}, "duration": {"90"},
			"facilitator": {itoa(fran.id)}, "note_taker": {itoa(priya.id)}, "participants": {itoa(priya.id), itoa(sam.id)}}
		check(t, "a bad time", fran.post(path+"/debrief", with(schedule, "starts_at", "next blursday", "duration", "5")), http.StatusUnprocessableEntity,
			[]string{"Write a date and time like", "Give a length between 15 and 480 minutes.", `value="next blursday"`}, nil)
		check(t, "no facilitator", fran.post(path+"/debrief", with(schedule, "facilitator", "")), http.StatusUnprocessableEntity, []string{"Choose who facilitates"}, nil)
		check(t, "viewers cannot schedule", sam.post(path+"/debrief", schedule), http.StatusForbidden, nil, nil)
		check(t, "schedule", fran.post(path+"/debrief", schedule), http.StatusSeeOther, nil, nil)
		check(t, "scheduled", sam.get(path+"/debrief"), http.StatusOK, []string{"2026-03-16 14:00 UTC", "Fran Facilitator", "Priya Raman", "Download the invitation"}, nil)

		ics := sam.get(path + "/debrief.ics")
		check(t, "the .ics", ics, http.StatusOK, []string{"BEGIN:VCALENDAR", "METHOD:REQUEST"}, nil)
		if ct := ics.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/calendar") {
			t.Errorf("Content-Type %q", ct)
		}
		for _, line := range strings.SplitAfter(ics.body, "\r\n") {
			if len(strings.TrimSuffix(line, "\r\n")) > 75 {
				t.Errorf("line longer than 75 octets: %q", line)
			}
		}
		event := parseICS(t, ics.body)
		if event.Method != "REQUEST" || event.Start != "2026-03-16T14:00:00+00:00" || event.End != "2026-03-16T15:30:00+00:00" ||
			!strings.HasPrefix(event.UID, "debrief-") || event.Stamp == "" ||
			event.Organizer != "mailto:fran.facilitator@example.com" || !strings.Contains(event.Summary, "Canada - Multiple Services") ||
			!strings.Contains(event.Description, path+"\n") || !strings.Contains(event.Description, path+"/debrief") || len(event.Attendees) != 3 {
			t.Errorf("parsed event = %+v", event)
		}

		check(t, "move it", fran.post(path+"/debrief", with(schedule, "starts_at", "2026-03-17 10:00")), http.StatusSeeOther, nil, nil)
		moved := parseICS(t, fran.get(path+"/debrief.ics").body)
		if moved.UID != event.UID || moved.Sequence != 1 || moved.Start != "2026-03-17T09:00:00+00:00" {
			t.Errorf("moved event = %+v, want the same UID at sequence 1", moved)
		}

		notes := "We saw **two** alerts. <script>alert(1)</script> [x](javascript:alert(2))"
		check(t, "preview saves nothing", fran.post(path+"/debrief/notes", url.Values{"notes": {notes}, "preview": {"notes"}}), http.StatusOK,
			[]string{"<strong>two</strong>", "Preview"}, []string{"<script>alert", `href="javascript:`})
		r := fran.doWith(http.MethodPost, path+"/debrief/notes", url.Values{"notes": {notes}, "preview": {"notes"}, "csrf_token": {fran.csrf}}, map[string]string{"HX-Request": "true"})
		check(t, "the htmx preview", r, http.StatusOK, []string{"<strong>two</strong>"}, []string{"<html", "<script>alert"})
		check(t, "not saved", fran.get(path+"/debrief"), http.StatusOK, nil, []string{"<strong>two</strong>"})
		check(t, "save the notes", fran.post(path+"/debrief/notes", url.Values{"notes": {notes}}), http.StatusSeeOther, nil, nil)
		check(t, "the notes", sam.get(path+"/debrief"), http.StatusOK, []string{"<strong>two</strong>"}, []string{"<script>alert", `href="javascript:`})
		check(t, "notes too long", fran.post(path+"/debrief/notes", url.Values{"notes": {strings.Repeat("x", models.DebriefNotesMax+1)}}),
			http.StatusUnprocessableEntity, []string{"Keep the notes under"}, nil)
		check(t, "mail without SMTP", fran.post(path+"/debrief/invite", nil), http.StatusConflict, []string{"No SMTP server"}, nil)
		check(t, "the status page has no debrief", admin.anonymous().get("/status"), http.StatusOK, nil, []string{"two</strong>", "Debrief"})
	})
}

// icsEvent is what python's icalendar library reads of a calendar.
type icsEvent struct {
	Method, UID, Stamp, Start, End, Summary, Description, Organizer string
	Sequence                                                        int
	Attendees                                                       []string
}

// parseICS reads a calendar with Debian's python3-icalendar, a parser written by others: it
// must parse, hold one VEVENT, and give its fields back unescaped.
func parseICS(t *testing.T, calendar string) icsEvent {
	t.Helper()
	const script = `
import json, sys
from icalendar import Calendar
cal = Calendar.from_ical(sys.stdin.buffer.read())
events = [c for c in cal.walk() if c.name == "VEVENT"]
assert len(events) == 1, len(events)
e = events[0]
att = e.get("ATTENDEE")
att = att if isinstance(att, list) else [att]
for required in ("UID", "DTSTAMP", "DTSTART", "DTEND", "ORGANIZER", "SUMMARY", "DESCRIPTION"):
    assert required in e, required
print(json.dumps({"Method": str(cal.get("METHOD")), "UID": str(e.get("UID")), "Stamp": e.decoded("DTSTAMP").isoformat(),
    "Start": e.decoded("DTSTART").isoformat(), "End": e.decoded("DTEND").isoformat(), "Summary": str(e.get("SUMMARY")),
    "Description": str(e.get("DESCRIPTION")), "Organizer": str(e.get("ORGANIZER")), "Sequence": int(e.get("SEQUENCE")),
    "Attendees": [str(a) for a in att]}))
`
	cmd := exec.Command("/usr/bin/python3", "-c", script)
	cmd.Stdin = strings.NewReader(calendar)
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("python3-icalendar (apt-get install python3-icalendar) refused the calendar: %v\n%s\n%s", err, stderr, calendar)
	}
	var e icsEvent
	if err := json.Unmarshal(out, &e); err != nil {
		t.Fatal(err)
	}
	return e
}

// /reviews lists the reviews asked of the person, the open threads they started or are asked
// about, and the debriefs to come they are in, and nothing of anyone else's.
func TestReviewsPage(t *testing.T) {
	eachDB(t, func(t *testing.T, admin *app) {
		rita := admin.account("Rita Reviewer", "viewer")
		omar := admin.account("Omar Other", "responder")
		path := admin.createIncident(seed000Form())
		check(t, "empty", rita.get("/reviews"), http.StatusOK, []string{"No review is waiting for you.", "No open thread", "No debrief is scheduled", `href="/reviews" aria-current="page"`}, nil)
		check(t, "ask Rita", omar.post(path+"/review/requests", url.Values{"reviewers": {itoa(rita.id)}}), http.StatusSeeOther, nil, nil)
		check(t, "Omar comments", omar.post(path+"/review/threads", url.Values{"section": {"detection"}, "body": {"When did the first alert fire?"}}), http.StatusSeeOther, nil, nil)
		future := time.Now().UTC().Add(48 * time.Hour).Format("2006-01-02 15:04")
		check(t, "schedule", omar.post(path+"/debrief", url.Values{"starts_at": {future}, "time_zone": {"UTC"}, "duration": {"60"},
			"facilitator": {itoa(omar.id)}, "participants": {itoa(rita.id)}}), http.StatusSeeOther, nil, nil)
		mine := rita.get("/reviews")
		check(t, "Rita's", mine, http.StatusOK, []string{"Reviews asked of you", "Canada - Multiple Services", "Detection", "1 comment", future + " UTC", "participant"},
			[]string{"No review is waiting"})
		check(t, "Omar's", omar.get("/reviews"), http.StatusOK, []string{"No review is waiting for you.", "Detection", "facilitator"}, nil)
		check(t, "Rita approves", rita.post(path+"/review/approval", nil), http.StatusSeeOther, nil, nil)
		check(t, "approved leaves the list", rita.get("/reviews"), http.StatusOK, []string{"No review is waiting for you."}, nil)
		check(t, "an admin's own", admin.get("/reviews"), http.StatusOK, []string{"No review is waiting for you.", "No open thread", "No debrief is scheduled"}, nil)
	})
}

// Every path that publishes passes the one publish check: the edit form and the API refuse with
// the findings unless an admin publishes over them with a reason, which the history keeps.
func TestPublishCheckOnEveryPath(t *testing.T) {
	eachDB(t, func(t *testing.T, admin *app) {
		path := admin.createIncident(with(seed000Form(), "public", "true"))
		edit := admin.get(path + "/edit")
		form := with(seed000Form(), "public", "true", "postmortem_state", "published", "version", pageVersion(t, edit))
		check(t, "the form refuses", admin.post(path+"/edit", form), http.StatusUnprocessableEntity,
			[]string{"Publishing needs the publish check to pass", "No impact window", "No reviewer approved", "Publish anyway"}, nil)
		check(t, "not published", admin.anonymous().get("/status"+path), http.StatusOK, nil, []string{"Routing caches"})
		check(t, "no reason", admin.post(path+"/edit", with(form, "publish_anyway", "true")), http.StatusUnprocessableEntity, []string{"Say why"}, nil)
		check(t, "anyway, with a reason", admin.post(path+"/edit", with(form, "publish_anyway", "true", "publish_reason", "Customers asked today.")), http.StatusSeeOther, nil, nil)
		check(t, "published", admin.anonymous().get("/status"+path), http.StatusOK, []string{"Routing caches"}, nil)
		check(t, "the reason in the history", admin.get(path+"/history"), http.StatusOK, []string{"Customers asked today.", "No reviewer approved"}, nil)

		token := apiClient(t, admin)
		body := map[string]any{"title": "API", "severity": "sev3", "status": "resolved", "postmortem_state": "published", "public": true, "time_zone": "UTC"}
		r := token.json(http.MethodPost, "/api/v1/incidents", body)
		check(t, "the API refuses a published create", r, http.StatusUnprocessableEntity, []string{`"findings"`, `"rule":"no_approval"`}, nil)
		body["publish_anyway"], body["publish_reason"] = true, "Backfilled from the old tracker."
		r = token.json(http.MethodPost, "/api/v1/incidents", body)
		check(t, "created published over the findings", r, http.StatusCreated, []string{`"postmortem_state":"published"`}, nil)

		created := token.json(http.MethodPost, "/api/v1/incidents", map[string]any{"title": "API two", "severity": "sev3", "status": "resolved", "public": true, "time_zone": "UTC"})
		var doc struct {
			ID      int64 `json:"id"`
			Version int   `json:"version"`
		}
		created.decode(t, &doc)
		put := map[string]any{"version": doc.Version, "title": "API two", "severity": "sev3", "status": "resolved", "public": true, "time_zone": "UTC", "postmortem_state": "published"}
		check(t, "the API refuses a published update", token.json(http.MethodPut, "/api/v1/incidents/"+itoa(doc.ID), put), http.StatusUnprocessableEntity,
			[]string{`"findings"`, "No reviewer approved"}, nil)
		put["publish_anyway"], put["publish_reason"] = true, "Postmortem of record."
		check(t, "published over them", token.json(http.MethodPut, "/api/v1/incidents/"+itoa(doc.ID), put), http.StatusOK, []string{`"postmortem_state":"published"`}, nil)
		check(t, "the API's reason in the history", admin.get("/incidents/"+itoa(doc.ID)+"/history"), http.StatusOK, []string{"Postmortem of record."}, nil)
	})
}

// apiClient is an API client with an admin's token.
func apiClient(t *testing.T, admin *app) *app {
	t.Helper()
	r := admin.post("/account/tokens", url.Values{"name": {"reviews"}})
	token := tokenPattern.FindString(r.body)
	if token == "" {
		t.Fatalf("no token: %d %.400s", r.status, r.body)
	}
	c := admin.anonymous()
	c.bearer = token
	return c
}
