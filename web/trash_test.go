package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"hindsight/models"
)

// apiJSON reads an incident through the API, as a client would see it.
func apiJSON(t *testing.T, a *app, path string) string {
	t.Helper()
	r := a.get("/api/v1" + path)
	if r.status != http.StatusOK {
		t.Fatalf("GET /api/v1%s: %d %.300s", path, r.status, r.body)
	}
	return r.body
}

func publish(t *testing.T, admin *app, path string) {
	t.Helper()
	r := admin.post(path+"/postmortem/state", url.Values{"state": {"published"}, "publish_anyway": {"true"}, "reason": {"The test publishes over the completeness check."}, "version": {pageVersion(t, admin.get(path+"/postmortem"))}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("publish: %d %.300s", r.status, r.body)
	}
}

// TestEveryDeleteAsksFirst: the incident page's Delete controls are links to confirmation pages
// (no one-click POST), and each page asks with a button that posts the delete.
func TestEveryDeleteAsksFirst(t *testing.T) {
	a := newApp(t)
	other := a.createIncident(with(seed000Form(), "title", "Earlier outage"))
	path := a.createIncident(with(seed000Form(), "public", "true"))
	a.post(path+"/events", eventForm("body", "Looking into it"))
	a.post(path+"/windows", url.Values{"started_at": {"2026-03-11T08:00"}, "time_zone": {"UTC"}, "level": {"degraded"}, "note": {"p99 5 s"}})
	a.post(path+"/follow-ups", url.Values{"title": {"Alert on latency"}, "kind": {"detect"}, "priority": {"p1"}, "status": {"open"}})
	a.post(path+"/links", url.Values{"kind": {"recurrence_of"}, "incident_id": {strings.TrimPrefix(other, "/incidents/")}})

	page := a.get(path).body
	if strings.Contains(page, `/delete"><input type="hidden" name="csrf_token"`) || regexp.MustCompile(`<form method="post" action="[^"]*/delete`).MatchString(page) {
		t.Error("the incident page still deletes with one click")
	}
	for _, c := range []struct{ address, question, detail string }{
		{path + "/delete", "Delete incident #2 “Canada - Multiple Services - Degraded Performance”?", "This moves it to the Trash"},
		{path + "/events/1/delete", "Delete this timeline entry of", "Looking into it"},
		{path + "/windows/1/delete", "Delete this impact window of", "p99 5 s"},
		{path + "/follow-ups/1/delete", "Delete the follow-up “Alert on latency”?", "You can undo it right after."},
		{path + "/links/1/delete", "Delete the link between #2 and #1?", "link them again"},
	} {
		if !strings.Contains(page, `href="`+c.address+`"`) {
			t.Errorf("the incident page has no Delete link to %s", c.address)
		}
		check(t, "ask "+c.address, a.get(c.address), http.StatusOK,
			[]string{"<h1>" + c.question, c.detail, `<form method="post" action="` + c.address + `">`, `name="csrf_token"`, "Cancel, keep it"}, nil)
	}
	check(t, "ask about a missing entry", a.get(path+"/events/99/delete"), http.StatusNotFound, nil, nil)
	check(t, "a viewer is not asked", a.as(models.RoleViewer).get(path+"/delete"), http.StatusForbidden, nil, nil)

	// A responder may not delete a published incident: the page says so before anything else.
	publish(t, a, path)
	check(t, "responder asks about a published incident", a.as(models.RoleResponder).get(path+"/delete"), http.StatusForbidden,
		[]string{"Only an admin may delete an incident whose postmortem is published."}, nil)
}

// TestTrashRestoresAnIncidentExactlyAsItWas deletes a published incident with its timeline,
// windows and follow-ups, finds it in the admin's Trash with who deleted it, restores it, and
// compares its API JSON before the delete and after the restore.
func TestTrashRestoresAnIncidentExactlyAsItWas(t *testing.T) {
	a := newApp(t)
	path := a.createIncident(with(seed000Form(), "public", "true", "factors", "cold-caches"))
	a.post(path+"/events", eventForm("body", "Looking into it", "public", "true"))
	a.post(path+"/events", eventForm("at", "2026-03-12T17:10", "kind", "note", "status", "", "body", "ACME escalated"))
	a.post(path+"/windows", url.Values{"started_at": {"2026-03-11T08:00"}, "ended_at": {"2026-03-11T12:00"}, "time_zone": {"UTC"}, "level": {"partial_outage"}, "services": {"Orchestrator"}})
	a.post(path+"/follow-ups", url.Values{"title": {"Alert on latency"}, "kind": {"detect"}, "priority": {"p1"}, "status": {"done"}, "factors": {"cold-caches"}})
	publish(t, a, path)
	before := apiJSON(t, a, path)
	if !strings.Contains(before, `"postmortem_state":"published"`) || !strings.Contains(before, "Alert on latency") {
		t.Fatalf("sample not as meant: %.400s", before)
	}
	id := strings.TrimPrefix(path, "/incidents/")

	r := a.post(path+"/delete", nil)
	check(t, "delete", r, http.StatusSeeOther, nil, nil)
	if loc := r.header.Get("Location"); loc != path+"/deleted" {
		t.Fatalf("delete lands on %q", loc)
	}
	check(t, "deleted page", a.get(path+"/deleted"), http.StatusOK, []string{"is in the Trash", "Restore it now", `action="/admin/trash/` + id + `/restore"`}, nil)
	check(t, "gone from its page", a.get(path), http.StatusNotFound, nil, nil)
	check(t, "gone from the status page", a.anonymous().get("/status/incidents/"+id), http.StatusNotFound, nil, nil)
	check(t, "gone from the list", a.get("/incidents"), http.StatusOK, nil, []string{`href="` + path + `"`})
	check(t, "gone from search", a.get("/search?q=routing+caches"), http.StatusOK, nil, []string{`href="` + path + `"`})

	trash := a.get("/admin/trash")
	check(t, "trash", trash, http.StatusOK, []string{"Canada - Multiple Services - Degraded Performance", "admin", "@example.com",
		`action="/admin/trash/` + id + `/restore"`, "Postmortem published"}, nil)
	check(t, "the admin tabs link the trash", a.get("/admin/users"), http.StatusOK, []string{`<a href="/admin/trash"`}, nil)
	responder := a.as(models.RoleResponder)
	check(t, "a responder has no trash", responder.get("/admin/trash"), http.StatusForbidden, nil, nil)
	check(t, "nor its link", responder.get("/incidents"), http.StatusOK, nil, []string{`href="/admin/trash"`})
	check(t, "nor restores", responder.post("/admin/trash/"+id+"/restore", nil), http.StatusForbidden, nil, nil)

	r = a.post("/admin/trash/"+id+"/restore", nil)
	check(t, "restore", r, http.StatusSeeOther, nil, nil)
	check(t, "restored page says so", a.get(path), http.StatusOK, []string{"Restored from the Trash"}, nil)
	if after := apiJSON(t, a, path); after != before {
		t.Errorf("the incident came back different:\nbefore %s\nafter  %s", before, after)
	}
	check(t, "back on the status page", a.anonymous().get("/status/incidents/"+id), http.StatusOK, []string{"Looking into it"}, nil)
	check(t, "back on the list", a.get("/incidents"), http.StatusOK, []string{`href="` + path + `"`}, nil)
	check(t, "found by search", a.get("/search?q=routing+caches"), http.StatusOK, []string{`href="` + path + `"`}, nil)
	check(t, "trash empty", a.get("/admin/trash"), http.StatusOK, []string{"The Trash is empty."}, nil)
	check(t, "restore twice", a.post("/admin/trash/"+id+"/restore", nil), http.StatusNotFound, nil, nil)
	check(t, "history says restored", a.get(path+"/history"), http.StatusOK, []string{"restored the incident"}, nil)
}

var updatedAt = regexp.MustCompile(`"updated_at":"[^"]*"`)

func withoutUpdatedAt(body string) string { return updatedAt.ReplaceAllString(body, `"updated_at":""`) }

// TestUndoPutsBackWhatWasDeleted deletes a timeline entry, an impact window and a follow-up in
// turn; each time the incident page offers Undo once, and the Undo brings the incident's API JSON
// back to what it was.
func TestUndoPutsBackWhatWasDeleted(t *testing.T) {
	a := newApp(t)
	path := a.createIncident(with(seed000Form(), "public", "true"))
	a.post(path+"/events", eventForm("body", "Looking into it", "public", "true"))
	a.post(path+"/windows", url.Values{"started_at": {"2026-03-11T08:00"}, "ended_at": {"2026-03-11T12:00"}, "time_zone": {"UTC"}, "level": {"partial_outage"}, "services": {"Orchestrator, Action Center"}, "note": {"p99 5 s"}})
	a.post(path+"/follow-ups", url.Values{"title": {"Alert on latency"}, "kind": {"detect"}, "priority": {"p1"}, "status": {"open"}, "owner": {"sre"}, "due_on": {"2026-04-01"}, "factors": {"cold-caches"}})
	a.post(path+"/follow-ups/1", url.Values{"title": {"Alert on latency"}, "kind": {"detect"}, "priority": {"p1"}, "status": {"done"}, "owner": {"sre"}, "version": {"1"}, "factors": {"cold-caches"}})
	before := apiJSON(t, a, path)
	undoToken := regexp.MustCompile(`name="token" value="([^"]+)"`)
	for _, c := range []struct{ record, message, gone string }{
		{"/events/1", "Deleted the timeline entry of 2026-03-12 16:39 UTC.", "Looking into it"},
		{"/windows/1", "Deleted the Partial outage window from 2026-03-11 08:00 UTC.", "p99 5 s"},
		{"/follow-ups/1", "Deleted the follow-up “Alert on latency”.", "Alert on latency"},
	} {
		r := a.post(path+c.record+"/delete", nil)
		if r.status != http.StatusSeeOther || r.header.Get("Location") != path+"#notice" {
			t.Fatalf("delete %s: %d to %q", c.record, r.status, r.header.Get("Location"))
		}
		page := a.get(path)
		check(t, "notice "+c.record, page, http.StatusOK, []string{`id="notice"`, c.message, `action="` + path + `/undo"`, ">Undo</button>"}, nil)
		if strings.Contains(apiJSON(t, a, path), c.gone) {
			t.Fatalf("%s is not deleted", c.record)
		}
		m := undoToken.FindStringSubmatch(page.body)
		if m == nil {
			t.Fatal("no undo token")
		}
		check(t, "notice shown once "+c.record, a.get(path), http.StatusOK, nil, []string{c.message})

		r = a.post(path+"/undo", url.Values{"token": {m[1]}})
		check(t, "undo "+c.record, r, http.StatusSeeOther, nil, nil)
		check(t, "undone "+c.record, a.get(path), http.StatusOK, []string{"Restored the "}, nil)
		// The record is back as it was; only the incident's updated_at moved, with the two changes.
		if after := apiJSON(t, a, path); withoutUpdatedAt(after) != withoutUpdatedAt(before) {
			t.Errorf("after undoing %s:\nbefore %s\nafter  %s", c.record, before, after)
		}
		check(t, "undo twice "+c.record, a.post(path+"/undo", url.Values{"token": {m[1]}}), http.StatusSeeOther, nil, nil)
		check(t, "nothing to undo "+c.record, a.get(path), http.StatusOK, []string{"There is nothing to undo here"}, nil)
	}
	// Another session cannot undo with a token it was never given.
	a.post(path+"/events/1/delete", nil)
	m := undoToken.FindStringSubmatch(a.get(path).body)
	other := a.as(models.RoleResponder)
	other.get(path)
	other.post(path+"/undo", url.Values{"token": {m[1]}})
	if strings.Contains(apiJSON(t, a, path), "Looking into it") {
		t.Error("another session undid the delete")
	}
	check(t, "history", a.get(path+"/history"), http.StatusOK, []string{"restored timeline entry #1", "restored impact window #1", "restored follow-up #1"}, nil)
}
