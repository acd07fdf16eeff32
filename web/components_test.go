package web_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
	"hindsight/web"
)

// addComponent adds a status page component covering the services, as an admin does.
func (a *app) addComponent(name string, services ...string) {
	a.t.Helper()
	a.get("/admin/components")
	r := a.post("/admin/components", url.Values{"name": {name}, "services": {strings.Join(services, ", ")}, "showcase": {"true"}})
	if r.status != http.StatusSeeOther {
		a.t.Fatalf("add component %s: %d %s", name, r.status, r.body)
	}
}

// appOn starts a server on the store and signs in with the role.
func appOn(t *testing.T, store *models.Store, role string) *app {
	jar, _ := cookiejar.New(nil)
	return (&app{t: t, e: web.New(web.Deps{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}), store: store, jar: jar}).as(role)
}

func tableRows(t *testing.T, store *models.Store, table string) int64 {
	t.Helper()
	db, err := store.SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := db.QueryRow("SELECT COUNT(*) FROM " + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// componentJSON is a component as components.json serves it.
type componentJSON struct {
	ID                 string   `json:"id"`
	Name               string   `json:"name"`
	Status             string   `json:"status"`
	Description        *string  `json:"description"`
	Group              bool     `json:"group"`
	GroupID            *string  `json:"group_id"`
	StartDate          *string  `json:"start_date"`
	Showcase           bool     `json:"showcase"`
	OnlyShowIfDegraded bool     `json:"only_show_if_degraded"`
	Position           int      `json:"position"`
	Components         []string `json:"components"`
}

func components(t *testing.T, a *app, path string) map[string]componentJSON {
	t.Helper()
	var doc struct {
		Components []json.RawMessage `json:"components"`
	}
	a.get(path).decode(t, &doc)
	out := map[string]componentJSON{}
	for _, raw := range doc.Components {
		var c componentJSON
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
		extra := []string{}
		if c.Group {
			extra = append(extra, "components")
		}
		sameKeys(t, "component "+c.Name, keys(t, raw), statuspageComponentKeys, extra...)
		out[c.Name] = c
	}
	return out
}

// TestComponentAdmin: admins alone manage the components, on both databases; bad input is
// refused beside its field with nothing written; the status page and components.json show what
// was set, and a service named on an incident adds no component by itself.
func TestComponentAdmin(t *testing.T) {
	storetest.Each(t, func(t *testing.T, store *models.Store) {
		admin := appOn(t, store, models.RoleAdmin)
		for _, role := range []string{models.RoleViewer, models.RoleResponder} {
			other := admin.as(role)
			check(t, role+" list", other.get("/admin/components"), http.StatusForbidden, nil, nil)
			other.get("/incidents")
			check(t, role+" add", other.post("/admin/components", url.Values{"name": {"Sneaky"}}), http.StatusForbidden, nil, nil)
		}
		check(t, "anonymous", admin.anonymous().get("/admin/components"), http.StatusSeeOther, nil, nil)
		if n := tableRows(t, store, "components"); n != 0 {
			t.Fatalf("%d components after refused posts", n)
		}

		check(t, "empty list", admin.get("/admin/components"), http.StatusOK, []string{"No components yet", "Add a component"}, nil)
		check(t, "group", admin.post("/admin/components", url.Values{"name": {"Platform"}, "group": {"true"}, "position": {"1"}}), http.StatusSeeOther, nil, nil)
		var groupID string
		for _, c := range components(t, admin, "/api/v2/components.json") {
			groupID = c.ID
		}
		for _, bad := range []struct {
			name string
			form url.Values
			want string
		}{
			{"no name", url.Values{"name": {" "}}, "This field is required"},
			{"bad date", url.Values{"name": {"X"}, "start_date": {"2024-13-45"}}, "start_date-error"},
			{"group with services", url.Values{"name": {"X"}, "group": {"true"}, "services": {"Gateway"}}, "A group covers no services itself"},
			{"no such group", url.Values{"name": {"X"}, "group_id": {"99999"}}, "Choose one of the groups listed."},
			{"not a number", url.Values{"name": {"X"}, "position": {"first"}}, "A whole number"},
		} {
			check(t, bad.name, admin.post("/admin/components", bad.form), http.StatusUnprocessableEntity, []string{bad.want, `aria-invalid="true"`}, nil)
		}
		if n := tableRows(t, store, "components"); n != 1 {
			t.Fatalf("%d components after bad input, want 1", n)
		}
		check(t, "member", admin.post("/admin/components", url.Values{
			"name": {"API"}, "description": {"Requests to the API"}, "services": {"Gateway, Router"}, "group_id": {groupID},
			"position": {"2"}, "showcase": {"true"}, "start_date": {"2026-01-01"},
		}), http.StatusSeeOther, nil, nil)
		check(t, "hidden unless degraded", admin.post("/admin/components", url.Values{"name": {"Billing"}, "services": {"Billing"}, "only_show_if_degraded": {"true"}, "position": {"3"}}), http.StatusSeeOther, nil, nil)

		// A public incident naming a new service adds no component.
		admin.createIncident(with(seed000Form(), "public", "true", "services", "Brand new service", "status", "investigating", "resolved_at", "", "mitigated_at", ""))
		got := components(t, admin.anonymous(), "/status/api/v2/components.json")
		if len(got) != 3 {
			t.Fatalf("components.json lists %v", got)
		}
		api, group := got["API"], got["Platform"]
		if api.GroupID == nil || *api.GroupID != group.ID || !group.Group || !slices.Equal(group.Components, []string{api.ID}) ||
			api.Description == nil || *api.Description != "Requests to the API" || api.StartDate == nil || *api.StartDate != "2026-01-01" ||
			!api.Showcase || api.Position != 2 || !got["Billing"].OnlyShowIfDegraded || got["Billing"].Showcase {
			t.Errorf("components = %+v", got)
		}
		page := admin.anonymous().get("/status")
		check(t, "status page", page, http.StatusOK, []string{"Platform", "API", "Requests to the API", "uptime over the last 90 days"}, []string{`component-name">Brand new service`, `component-name">Billing`})

		// Edit: the group's member becomes top level, and renamed.
		id := api.ID
		admin.get("/admin/components?edit=" + id)
		check(t, "edit", admin.post("/admin/components/"+id, url.Values{"name": {"Public API"}, "services": {"Gateway"}, "position": {"2"}}), http.StatusSeeOther, nil, nil)
		got = components(t, admin, "/api/v2/components.json")
		if c, ok := got["Public API"]; !ok || c.GroupID != nil || c.Showcase {
			t.Errorf("after edit = %+v", got)
		}
		check(t, "a group with members stays a group", admin.post("/admin/components/"+group.ID, url.Values{"name": {"Platform"}}), http.StatusSeeOther, nil, nil)
		check(t, "delete asks first", admin.get("/admin/components/"+id+"/delete"), http.StatusOK, []string{"Remove the component Public API?"}, nil)
		check(t, "viewer cannot delete", admin.as(models.RoleViewer).post("/admin/components/"+id+"/delete", nil), http.StatusForbidden, nil, nil)
		check(t, "delete", admin.post("/admin/components/"+id+"/delete", nil), http.StatusSeeOther, nil, nil)
		check(t, "gone", admin.post("/admin/components/"+id+"/delete", nil), http.StatusNotFound, nil, nil)
		if _, ok := components(t, admin, "/api/v2/components.json")["Public API"]; ok {
			t.Error("deleted component still listed")
		}
		if n := tableRows(t, store, "services WHERE name = 'Gateway'"); n != 1 {
			t.Error("deleting a component removed its service")
		}
	})
}

// maintenanceKeys are the keys of a scheduled maintenance in Statuspage's documented
// scheduled-maintenances endpoints (created_at, id, impact, incident_updates, monitoring_at,
// name, page_id, resolved_at, scheduled_for, scheduled_until, shortlink, status, updated_at),
// with started_at and components, which its live pages send too. No file in ../shared/data
// holds a maintenance, so the documented list is the reference.
var maintenanceKeys = []string{"components", "created_at", "id", "impact", "incident_updates", "monitoring_at", "name", "page_id", "resolved_at", "scheduled_for", "scheduled_until", "shortlink", "started_at", "status", "updated_at"}

type maintenanceJSON struct {
	ID             string            `json:"id"`
	Name           string            `json:"name"`
	Status         string            `json:"status"`
	Impact         string            `json:"impact"`
	ScheduledFor   time.Time         `json:"scheduled_for"`
	StartedAt      *time.Time        `json:"started_at"`
	Updates        []json.RawMessage `json:"incident_updates"`
	ComponentsJSON []json.RawMessage `json:"components"`
}

func maintenances(t *testing.T, a *app, path string) []maintenanceJSON {
	t.Helper()
	var doc struct {
		Page json.RawMessage   `json:"page"`
		List []json.RawMessage `json:"scheduled_maintenances"`
	}
	r := a.get(path)
	check(t, path, r, http.StatusOK, nil, nil)
	if r.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("%s: not open to other sites", path)
	}
	r.decode(t, &doc)
	if doc.List == nil {
		t.Fatalf("%s: no scheduled_maintenances list: %s", path, r.body)
	}
	sameKeys(t, path+" document", keys(t, json.RawMessage(r.body)), []string{"page", "scheduled_maintenances"})
	sameKeys(t, path+" page", keys(t, doc.Page), statuspagePageKeys)
	var out []maintenanceJSON
	for _, raw := range doc.List {
		if got := keys(t, raw); !slices.Equal(got, maintenanceKeys) {
			t.Errorf("%s: maintenance keys %v, want %v", path, got, maintenanceKeys)
		}
		var m maintenanceJSON
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		for _, u := range m.Updates {
			sameKeys(t, "maintenance update", keys(t, u), statuspageUpdateKeys)
		}
		for _, c := range m.ComponentsJSON {
			sameKeys(t, "maintenance component", keys(t, c), statuspageComponentKeys)
		}
		out = append(out, m)
	}
	return out
}

// TestMaintenance: responders schedule and update maintenance, viewers only read; it shows on
// the status page as scheduled, then in progress, with its components under maintenance, and in
// the maintenance endpoints at /status/api/v2 and the root in Statuspage's shape.
func TestMaintenance(t *testing.T) {
	storetest.Each(t, func(t *testing.T, store *models.Store) {
		admin := appOn(t, store, models.RoleAdmin)
		admin.addComponent("Database", "Postgres")
		admin.addComponent("Website", "Web")
		var dbID string
		for name, c := range components(t, admin, "/api/v2/components.json") {
			if name == "Database" {
				dbID = c.ID
			}
		}
		responder := admin.as(models.RoleResponder)
		viewer := admin.as(models.RoleViewer)
		check(t, "viewer reads", viewer.get("/maintenance"), http.StatusOK, []string{"No maintenance planned yet."}, []string{"Schedule maintenance</h2>"})
		check(t, "viewer cannot schedule", viewer.post("/maintenance", url.Values{"title": {"x"}}), http.StatusForbidden, nil, nil)

		start := time.Now().UTC().Add(48 * time.Hour)
		local := func(t time.Time) string { return t.Format("2006-01-02T15:04") }
		form := url.Values{
			"title": {"Database upgrade"}, "scheduled_for": {local(start)}, "scheduled_until": {local(start.Add(2 * time.Hour))},
			"components": {dbID}, "public": {"true"}, "status": {"scheduled"}, "body": {"We will upgrade the database."},
		}
		responder.get("/maintenance")
		check(t, "ends before it starts", responder.post("/maintenance", with(form, "scheduled_until", local(start.Add(-time.Hour)))), http.StatusUnprocessableEntity,
			[]string{"The end must come after the start.", "scheduled_until-error"}, nil)
		check(t, "no title", responder.post("/maintenance", with(form, "title", "")), http.StatusUnprocessableEntity, []string{"title-error", "This field is required"}, nil)
		check(t, "bad status", responder.post("/maintenance", with(form, "status", "exploded")), http.StatusUnprocessableEntity, []string{"status-error"}, nil)
		if n := tableRows(t, store, "maintenances"); n != 0 {
			t.Fatalf("%d maintenances after bad input", n)
		}
		r := responder.post("/maintenance", form)
		if r.status != http.StatusSeeOther {
			t.Fatalf("schedule: %d %s", r.status, r.body)
		}
		path := r.header.Get("Location")
		check(t, "private one", responder.post("/maintenance", with(form, "title", "Internal only", "public", "")), http.StatusSeeOther, nil, nil)

		anonymous := admin.anonymous()
		check(t, "status page: scheduled", anonymous.get("/status"), http.StatusOK,
			[]string{"Scheduled maintenance", "Database upgrade", ">Scheduled<", "We will upgrade the database."}, []string{"Internal only", "Under maintenance"})
		for _, prefix := range []string{"/status/api/v2", "/api/v2"} {
			if all := maintenances(t, anonymous, prefix+"/scheduled-maintenances.json"); len(all) != 1 || all[0].Name != "Database upgrade" || all[0].Status != "scheduled" || all[0].Impact != "maintenance" || len(all[0].ComponentsJSON) != 1 {
				t.Errorf("%s all = %+v", prefix, all)
			}
			if up := maintenances(t, anonymous, prefix+"/scheduled-maintenances/upcoming.json"); len(up) != 1 {
				t.Errorf("%s upcoming = %+v", prefix, up)
			}
			if active := maintenances(t, anonymous, prefix+"/scheduled-maintenances/active.json"); len(active) != 0 {
				t.Errorf("%s active = %+v", prefix, active)
			}
		}
		var summary struct {
			Scheduled []json.RawMessage `json:"scheduled_maintenances"`
		}
		anonymous.get("/api/v2/summary.json").decode(t, &summary)
		if len(summary.Scheduled) != 1 || !slices.Equal(keys(t, summary.Scheduled[0]), maintenanceKeys) {
			t.Errorf("summary's maintenances = %s", summary.Scheduled)
		}

		check(t, "viewer cannot post", viewer.post(path+"/updates", url.Values{"status": {"in_progress"}}), http.StatusForbidden, nil, nil)
		responder.get(path)
		check(t, "bad update", responder.post(path+"/updates", url.Values{"status": {"sideways"}}), http.StatusUnprocessableEntity, []string{"update-status-error"}, nil)
		check(t, "started", responder.post(path+"/updates", url.Values{"status": {"in_progress"}, "body": {"Started early."}}), http.StatusSeeOther, nil, nil)
		check(t, "status page: in progress", anonymous.get("/status"), http.StatusOK, []string{">In progress<", "Started early.", "Under maintenance"}, nil)
		if up := maintenances(t, anonymous, "/api/v2/scheduled-maintenances/upcoming.json"); len(up) != 0 {
			t.Errorf("upcoming after start = %+v", up)
		}
		active := maintenances(t, anonymous, "/api/v2/scheduled-maintenances/active.json")
		if len(active) != 1 || active[0].Status != "in_progress" || active[0].StartedAt == nil || len(active[0].Updates) != 2 {
			t.Fatalf("active = %+v", active)
		}
		got := components(t, anonymous, "/api/v2/components.json")
		if got["Database"].Status != "under_maintenance" || got["Website"].Status != "operational" {
			t.Errorf("component statuses = %+v", got)
		}

		// Rescheduled to the past: over by its schedule, it no longer counts as under way.
		responder.get(path)
		check(t, "reschedule", responder.post(path, with(form, "scheduled_for", local(start.Add(-72*time.Hour)), "scheduled_until", local(start.Add(-70*time.Hour)))), http.StatusSeeOther, nil, nil)
		if active := maintenances(t, anonymous, "/api/v2/scheduled-maintenances/active.json"); len(active) != 0 {
			t.Errorf("active after its end = %+v", active)
		}
		if all := maintenances(t, anonymous, "/api/v2/scheduled-maintenances.json"); len(all) != 1 || all[0].Status != "completed" {
			t.Errorf("all after its end = %+v", all)
		}
		check(t, "delete asks", responder.get(path+"/delete"), http.StatusOK, []string{"Remove the maintenance Database upgrade?"}, nil)
		check(t, "delete", responder.post(path+"/delete", nil), http.StatusSeeOther, nil, nil)
		if n := tableRows(t, store, "maintenance_updates"); n != 1 {
			t.Errorf("%d maintenance updates left, want the private one's", n)
		}

	})
}

// seedStatusExtras gives the status page of the sample incidents what they lack for pictures
// and the accessibility check: a public incident in the last 90 days, so the uptime bars show
// impact, planned maintenance under way and to come, and a group.
func seedStatusExtras(t testing.TB, store *models.Store) {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Minute)
	ago := func(d time.Duration) *time.Time { at := now.Add(-d); return &at }
	windows := []models.WindowInput{
		{StartedAt: *ago(20 * 24 * time.Hour), EndedAt: ago(20*24*time.Hour - 90*time.Minute), Level: "major_outage", Services: []string{"Orchestrator"}},
		{StartedAt: *ago(20*24*time.Hour - 90*time.Minute), EndedAt: ago(20*24*time.Hour - 4*time.Hour), Level: "degraded", Services: []string{"Orchestrator", "Gateway"}},
	}
	timeline := []models.EventInput{{At: *ago(20 * 24 * time.Hour), Kind: "status_update", Status: "investigating", Body: "Jobs are failing to start.", Public: true}}
	in := models.IncidentInput{
		Title: "Orchestrator jobs failing to start", Severity: "sev2", Status: "resolved", TimeZone: "UTC", Public: true, PostmortemState: "none",
		Services: []string{"Orchestrator", "Gateway"}, Milestones: models.Milestones{StartedAt: ago(20 * 24 * time.Hour), ResolvedAt: ago(20*24*time.Hour - 4*time.Hour)},
	}
	if _, err := store.CreateIncident(ctx, in, models.Children{Timeline: &timeline, ImpactWindows: &windows}); err != nil {
		t.Fatal(err)
	}
	degraded := []models.WindowInput{{StartedAt: *ago(3 * 24 * time.Hour), EndedAt: ago(3*24*time.Hour - 40*time.Minute), Level: "partial_outage", Services: []string{"Authorization Service"}}}
	in2 := models.IncidentInput{
		Title: "Sign-in slow for some organizations", Severity: "sev3", Status: "resolved", TimeZone: "UTC", Public: true, PostmortemState: "none",
		Services: []string{"Authorization Service"}, Milestones: models.Milestones{StartedAt: ago(3 * 24 * time.Hour), ResolvedAt: ago(3*24*time.Hour - 40*time.Minute)},
	}
	if _, err := store.CreateIncident(ctx, in2, models.Children{ImpactWindows: &degraded}); err != nil {
		t.Fatal(err)
	}
	list, err := store.ListComponents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]int64{}
	for _, c := range list {
		ids[c.Name] = c.ID
	}
	group, err := store.SaveComponent(ctx, 0, models.ComponentInput{Name: "Identity", IsGroup: true, Position: 0, Description: "Signing in and organizations"})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"Authorization Service", "Organization Service"} {
		for _, c := range list {
			if c.Name == name {
				in := models.ComponentInput{Name: c.Name, Position: c.Position, Showcase: true, Services: c.ServiceNames(), GroupID: group.ID}
				if _, err := store.SaveComponent(ctx, c.ID, in); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if _, err := store.CreateMaintenance(ctx, models.MaintenanceInput{
		Title: "Gateway certificate rotation", ScheduledFor: now.Add(-30 * time.Minute), ScheduledUntil: now.Add(90 * time.Minute), Public: true,
		Components: []int64{ids["Gateway"]},
	}, models.MaintenanceUpdateInput{Status: models.MaintenanceInProgress, Body: "The rotation has begun; requests may be retried."}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.CreateMaintenance(ctx, models.MaintenanceInput{
		Title: "Orchestrator database upgrade", ScheduledFor: now.Add(72 * time.Hour), ScheduledUntil: now.Add(74 * time.Hour), Public: true,
		Components: []int64{ids["Orchestrator"]},
	}, models.MaintenanceUpdateInput{Status: models.MaintenanceScheduled, Body: "Jobs queue for up to **two hours** while the database is upgraded."}); err != nil {
		t.Fatal(err)
	}
}
