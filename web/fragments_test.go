package web_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"hindsight/models"
)

// TestKeptPagesFollowEveryChange views the incident list and an incident page, which the server
// keeps rendered, then changes what they show every way there is (through the pages, through the
// store as another process would, and by plain SQL) and checks each change shows on the next view.
// It also checks that a kept incident page carries each viewer's own CSRF token and role.
func TestKeptPagesFollowEveryChange(t *testing.T) {
	a := newApp(t)
	a.loadDemo()
	ctx := context.Background()
	db, err := a.store.SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	exec := func(q string) {
		t.Helper()
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	// Seeds are loaded in order: 3 = seed 002, 2 = seed 001.
	const page, other = "/incidents/3", "/incidents/2"
	seen := func(step, path string, want ...string) {
		t.Helper()
		a.get(path) // kept before the change below, or now
		check(t, step, a.get(path), http.StatusOK, want, []string{"hindsight-csrf-placeholder"})
	}
	seen("list before", "/incidents")
	seen("page before", page)
	seen("other page before", other)

	check(t, "event added", a.post(page+"/events", url.Values{"at": {"2026-03-12T17:00"}, "time_zone": {"UTC"}, "kind": {"note"}, "body": {"Caches were warmed by hand."}}), http.StatusSeeOther, nil, nil)
	seen("event shows", page, "Caches were warmed by hand.")

	inc, err := a.store.GetIncident(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	fu, err := a.store.CreateFollowUp(ctx, 3, models.FollowUpInput{Title: "Alert on retry rate", Kind: "detect", Priority: "p1", Status: "open"})
	if err != nil {
		t.Fatal(err)
	}
	seen("follow-up added by another process", page, "Alert on retry rate")
	if err := a.store.UpdateFollowUp(ctx, 3, fu.ID, fu.Version, models.FollowUpInput{Title: "Alert on the retry rate per host", Kind: "detect", Priority: "p1", Status: "open"}); err != nil {
		t.Fatal(err)
	}
	seen("follow-up edited by another process", page, "Alert on the retry rate per host")

	if _, err := a.store.AddLink(ctx, 3, models.LinkInput{Kind: "related", IncidentID: 2}); err != nil {
		t.Fatal(err)
	}
	seen("link shows from this end", page, "#2")
	seen("link shows from the other end", other, "#3")
	two, err := a.store.GetIncident(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.store.UpdateIncident(ctx, 2, two.Version, models.IncidentInput{Title: "Renamed by hand", Summary: two.Summary,
		Severity: two.Severity, Status: two.Status, TimeZone: two.TimeZone, PostmortemState: two.PostmortemState,
		Services: two.ServiceNames(), Regions: two.RegionNames(), Factors: two.FactorSlugs(), Milestones: two.Milestones()}, models.Children{}); err != nil {
		t.Fatal(err)
	}
	seen("linked incident's new title", page, "Renamed by hand")
	links, err := a.store.Links(ctx, 3)
	if err != nil || len(links) != 1 {
		t.Fatalf("links: %v, %v", links, err)
	}
	if err := a.store.DeleteLink(ctx, 2, links[0].LinkID); err != nil {
		t.Fatal(err)
	}
	seen("link removed from the other end", page, "Not linked to any incident.")

	// Services and regions have no rename in the app yet: a rename by hand records a shared
	// change, as the store's write path would.
	exec("UPDATE services SET name = 'Authorisation' WHERE name = 'Authorization Service'")
	if err := a.store.RecordSharedChange(ctx); err != nil {
		t.Fatal(err)
	}
	seen("service renamed", page, "Authorisation")
	seen("service renamed on the list", "/incidents", "Authorisation")
	if _, err := a.store.UpdateIncident(ctx, 3, inc.Version, models.IncidentInput{
		Title: "Retries overwhelmed the authorization hosts", Summary: inc.Summary, Severity: inc.Severity,
		Status: inc.Status, TimeZone: inc.TimeZone, PostmortemState: inc.PostmortemState,
		Services: []string{"Authorisation"}, Milestones: inc.Milestones(),
	}, models.Children{}); err != nil {
		t.Fatal(err)
	}
	seen("incident edited by another process", page, "Retries overwhelmed the authorization hosts")
	seen("incident edited, on the list", "/incidents", "Retries overwhelmed the authorization hosts")
	exec("UPDATE regions SET name = 'Europe (renamed)' WHERE id = (SELECT min(id) FROM regions)")
	if err := a.store.RecordSharedChange(ctx); err != nil {
		t.Fatal(err)
	}
	seen("region renamed on the list", "/incidents", "Europe (renamed)")

	// A write to an incident this page does not show leaves it kept: the session with its account, and the mark.
	later := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	elsewhere, err := a.store.CreateIncident(ctx, models.IncidentInput{Title: "Status page certificate expired", Severity: "sev3",
		Status: "resolved", TimeZone: "UTC", PostmortemState: "none", Milestones: models.Milestones{StartedAt: &later}}, models.Children{})
	if err != nil {
		t.Fatal(err)
	}
	a.get(page)
	if _, err := a.store.UpdateIncident(ctx, elsewhere.ID, elsewhere.Version, models.IncidentInput{Title: elsewhere.Title, Severity: "sev4",
		Status: "resolved", TimeZone: "UTC", PostmortemState: "none", Milestones: elsewhere.Milestones()}, models.Children{}); err != nil {
		t.Fatal(err)
	}
	if n := a.statements(page); n != 2 {
		t.Errorf("after a write to another incident the page took %d statements, want 2 (kept)", n)
	}
	check(t, "factor added", a.post("/factors", url.Values{"slug": {"dns-ttl"}, "name": {"DNS TTL too long"}}), http.StatusSeeOther, nil, nil)
	seen("new factor offered on the follow-up form", page, "DNS TTL too long")

	// One rendering serves every session: each gets its own token, and a viewer gets no forms.
	b := a.as(models.RoleResponder)
	r := b.get(page)
	check(t, "another responder's view", r, http.StatusOK, []string{`name="csrf_token"`}, []string{"hindsight-csrf-placeholder"})
	if b.csrf == "" || b.csrf == a.csrf {
		t.Fatalf("the kept page gave the second responder token %q, the first %q", b.csrf, a.csrf)
	}
	check(t, "the second responder's token works", b.post(page+"/events", url.Values{"at": {"2026-03-12T18:00"}, "time_zone": {"UTC"}, "kind": {"note"}, "body": {"Second responder was here."}}), http.StatusSeeOther, nil, nil)
	a.get(page)
	check(t, "the first responder's token still works", a.post(page+"/events", url.Values{"at": {"2026-03-12T19:00"}, "time_zone": {"UTC"}, "kind": {"note"}, "body": {"First responder again."}}), http.StatusSeeOther, nil, nil)
	v := a.as(models.RoleViewer)
	check(t, "a viewer's view", v.get(page), http.StatusOK, []string{"First responder again."}, []string{"Add a timeline entry", `action="/incidents/3/events`})
	check(t, "a responder's view", a.get(page), http.StatusOK, []string{"Add a timeline entry", `action="/incidents/3/events`}, nil)

	if err := a.store.DeleteIncident(ctx, 3); err != nil {
		t.Fatal(err)
	}
	check(t, "deleted by another process", a.get(page), http.StatusNotFound, nil, nil)
}
