package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"hindsight/models"
)

// formFields reads the form of the page that posts to action as a browser would submit it: its
// inputs (checkboxes and radios only when checked), textareas and each select's chosen option,
// and the controls elsewhere that name it with form="id".
func formFields(t *testing.T, page, action string) url.Values {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	attr := func(n *html.Node, key string) (string, bool) {
		for _, a := range n.Attr {
			if a.Key == key {
				return a.Val, true
			}
		}
		return "", false
	}
	var form *html.Node
	var find func(*html.Node)
	find = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "form" {
			if a, _ := attr(n, "action"); a == action && form == nil {
				form = n
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			find(c)
		}
	}
	find(doc)
	if form == nil {
		t.Fatalf("no form posts to %s", action)
	}
	values := url.Values{}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			name, named := attr(n, "name")
			_, disabled := attr(n, "disabled")
			if named && !disabled {
				switch n.Data {
				case "input":
					typ, _ := attr(n, "type")
					value, hasValue := attr(n, "value")
					_, checked := attr(n, "checked")
					switch typ {
					case "checkbox", "radio":
						if checked {
							if !hasValue {
								value = "on"
							}
							values.Add(name, value)
						}
					case "submit", "button", "file":
					default:
						values.Add(name, value)
					}
				case "textarea":
					var text strings.Builder
					for c := n.FirstChild; c != nil; c = c.NextSibling {
						text.WriteString(c.Data)
					}
					values.Add(name, strings.TrimPrefix(text.String(), "\n"))
				case "select":
					chosen, first := "", ""
					var options func(*html.Node)
					options = func(o *html.Node) {
						if o.Type == html.ElementNode && o.Data == "option" {
							v, _ := attr(o, "value")
							if first == "" {
								first = v
							}
							if _, sel := attr(o, "selected"); sel && chosen == "" {
								chosen = v
							}
						}
						for c := o.FirstChild; c != nil; c = c.NextSibling {
							options(c)
						}
					}
					options(n)
					if chosen == "" {
						chosen = first
					}
					values.Add(name, chosen)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(form)
	return values
}

// TestNewFormSavesPastedRows: seed 000 read into the new-incident form and saved as the form
// stands files the incident with every pasted row kept (7 timeline entries, 2 impact windows,
// 5 follow-ups) in one save; a row whose Keep box is cleared is left out; a pasted row with a
// bad time shows the form again with the reason beside it and saves nothing.
func TestNewFormSavesPastedRows(t *testing.T) {
	a := newApp(t)
	read := a.post("/incidents/new/paste", url.Values{"paste": {seedText(t, "000")}, "paste_time_zone": {"UTC"}})
	if read.status != http.StatusOK {
		t.Fatalf("read: %d", read.status)
	}
	form := formFields(t, read.body, "/incidents")
	if form.Get("timeline.6.keep") == "" || form.Get("follow_ups.4.keep") == "" {
		t.Fatalf("the pasted rows are not kept by default: %v", form)
	}
	// A bad time in a pasted row: the form again, the reason beside the row, nothing saved.
	bad := with(form, "timeline.2.at", "the 45th of Smarch")
	r := a.post("/incidents", bad)
	check(t, "bad row", r, http.StatusUnprocessableEntity, []string{`name="timeline.2.at" value="the 45th of Smarch"`, `id="timeline-2-at-error">Not a date and time`}, nil)
	if _, n, _ := a.store.ListIncidents(t.Context(), models.IncidentFilter{}); n != 0 {
		t.Fatalf("a refused form saved %d incidents", n)
	}
	// The last follow-up left out by clearing its Keep box.
	form.Del("follow_ups.4.keep")
	path := a.createIncident(form)
	inc := a.incidentAt(path)
	if len(inc.Timeline) != 7 || len(inc.ImpactWindows) != 2 || len(inc.FollowUps) != 4 {
		t.Fatalf("saved %d entries, %d windows, %d follow-ups; want 7, 2, 4", len(inc.Timeline), len(inc.ImpactWindows), len(inc.FollowUps))
	}
	first := inc.Timeline[0]
	if first.Kind != "status_update" || first.Status != "investigating" || !first.Public || first.At.UTC().Format("2006-01-02 15:04") != "2026-03-12 16:39" {
		t.Errorf("first entry = %+v", first)
	}
	if inc.FollowUps[3].Title != "Audit all regional gateway clusters" {
		t.Errorf("follow-ups = %v", inc.FollowUps)
	}
	if src := inc.MilestoneSources["started_at"]; src.Kind != "pasted" {
		t.Errorf("started_at's source = %+v, want pasted", src)
	}
}

// TestIncidentPageAddsPastedRows: on an incident's page, seed 003's status history pasted into
// the box is shown as rows to confirm, nothing saved; confirming adds the kept ones in one
// transaction; a bad row shows the page again with the reason and adds nothing; a viewer
// cannot.
func TestIncidentPageAddsPastedRows(t *testing.T) {
	a := newApp(t)
	path := a.createIncident(with(seed000Form(), "title", "Heroku builds failing"))
	a.get(path)
	read := a.post(path+"/paste", url.Values{"paste": {seedText(t, "003")}, "time_zone": {"UTC"}})
	check(t, "read", read, http.StatusOK, []string{`name="timeline.0.at" value="2022-08-15 22:34"`}, nil)
	if got := a.incidentAt(path); len(got.Timeline) != 0 {
		t.Fatalf("reading added %d entries", len(got.Timeline))
	}
	form := formFields(t, read.body, path+"/paste/confirm")
	check(t, "bad row", a.post(path+"/paste/confirm", with(form, "timeline.1.at", "not a time")), http.StatusUnprocessableEntity,
		[]string{`value="not a time"`}, nil)
	if got := a.incidentAt(path); len(got.Timeline) != 0 {
		t.Fatalf("a refused confirm added %d entries", len(got.Timeline))
	}
	check(t, "viewer", a.as(models.RoleViewer).post(path+"/paste/confirm", form), http.StatusForbidden, nil, nil)
	r := a.post(path+"/paste/confirm", form)
	if r.status != http.StatusSeeOther {
		t.Fatalf("confirm: %d %.500s", r.status, r.body)
	}
	got := a.incidentAt(path)
	var updates []string
	for _, ev := range got.Timeline {
		if ev.Kind == "status_update" {
			updates = append(updates, ev.Status+" "+ev.At.UTC().Format("15:04"))
		}
	}
	if strings.Join(updates, ", ") != "investigating 22:34, monitoring 23:09, resolved 23:16" {
		t.Errorf("status updates added = %v", updates)
	}
}

// TestBulkFollowUps: a pasted list, bullets and numbers and checkboxes stripped, becomes one
// follow-up per line in one save; blank lines are skipped; an over-long title refuses the
// whole list with the reason and the text kept; an empty list says what to do.
func TestBulkFollowUps(t *testing.T) {
	a := newApp(t)
	path := a.createIncident(seed000Form())
	a.get(path)
	list := "- Warm the routing caches before serving\n\n2. **Raise the minimum capacity**\n* [ ] Alert on p99 latency\n"
	r := a.post(path+"/follow-ups/bulk", url.Values{"titles": {list}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("bulk: %d %.400s", r.status, r.body)
	}
	var titles []string
	for _, f := range a.incidentAt(path).FollowUps {
		titles = append(titles, f.Title)
	}
	if strings.Join(titles, " | ") != "Warm the routing caches before serving | Raise the minimum capacity | Alert on p99 latency" {
		t.Errorf("titles = %q", titles)
	}
	long := "Fine\n" + strings.Repeat("x", 600)
	check(t, "too long", a.post(path+"/follow-ups/bulk", url.Values{"titles": {long}}), http.StatusUnprocessableEntity, []string{`id="fu-bulk-titles-error"`, "Fine\n"}, nil)
	check(t, "empty", a.post(path+"/follow-ups/bulk", url.Values{"titles": {"\n  \n"}}), http.StatusUnprocessableEntity, []string{"Write one follow-up per line."}, nil)
	if n := len(a.incidentAt(path).FollowUps); n != 3 {
		t.Errorf("after the refusals: %d follow-ups, want 3", n)
	}
	htmx := a.doWith(http.MethodPost, path+"/follow-ups/bulk", url.Values{"titles": {"Fourth"}, "csrf_token": {a.csrf}}, map[string]string{"HX-Request": "true"})
	check(t, "htmx", htmx, http.StatusOK, []string{`id="follow-ups"`, "Fourth"}, []string{"<html"})
}

// incidentAt reads the incident at a page's path from the store.
func (a *app) incidentAt(path string) *models.Incident {
	a.t.Helper()
	var id int64
	for _, c := range strings.TrimPrefix(path, "/incidents/") {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + int64(c-'0')
	}
	inc, err := a.store.GetIncident(a.t.Context(), id)
	if err != nil {
		a.t.Fatal(err)
	}
	return inc
}
