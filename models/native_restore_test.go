package models_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"image"
	"image/png"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/demo"
	"hindsight/models/importer"
	"hindsight/models/native"
	"hindsight/models/statuspage"
	"hindsight/models/storetest"
)

// Every base table of the schema, walked rather than listed, is carried by the native export or
// named with the reason it is not: a new table cannot be added without saying which.
func TestNativeExportKnowsEveryBaseTable(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		var base []string
		for _, table := range schemaTables(t, s) {
			if models.DoctorTableKind(s.Dialect(), table) != "base" {
				continue
			}
			base = append(base, table)
			kind, reason := models.NativeTableCoverage(table)
			if kind == "" {
				t.Errorf("base table %s is neither exported nor named as not exported, with why (models/native_tables.go)", table)
			}
			if kind == "not exported" && reason == "" {
				t.Errorf("base table %s is not exported, and no reason is given", table)
			}
		}
		if len(base) < 40 {
			t.Fatalf("the schema walk found only %d base tables: %v", len(base), base)
		}
		// Every table carried row for row exists in the schema.
		for _, table := range models.NativeVerbatimTables() {
			if !slices.Contains(base, table) {
				t.Errorf("%s is carried row for row but is not a base table of the schema", table)
			}
		}
		if kind, _ := models.NativeTableCoverage("incident_widgets"); kind != "" {
			t.Errorf("an unknown table is covered as %q", kind)
		}
	})
}

// fillEveryTable writes something into every base table the native export carries, through the
// store as the app writes it.
func fillEveryTable(t *testing.T, s *models.Store) {
	t.Helper()
	ctx := context.Background()
	if _, err := demo.Load(ctx, s); err != nil {
		t.Fatal(err)
	}
	records, err := statuspage.ParseFile("../testdata/statuspage/github_incidents_excerpt.json", statuspage.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := importer.Run(ctx, s, records, importer.Options{}); err != nil {
		t.Fatal(err)
	}
	seed, err := s.FindBySource(ctx, demo.Source, "seed-000")
	if err != nil {
		t.Fatal(err)
	}
	later, _ := s.FindBySource(ctx, demo.Source, "seed-001")
	if _, err := s.AddLink(ctx, later, models.LinkInput{Kind: "related", IncidentID: seed}); err != nil {
		t.Fatal(err)
	}
	inc, err := s.GetIncident(ctx, seed)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetPostmortemState(ctx, seed, inc.Version, models.PostmortemPublished); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveStatusSettings(ctx, models.StatusSettings{Name: "Acme status", TimeZone: "Europe/London", SupportURL: "https://help.example.com/"}); err != nil {
		t.Fatal(err)
	}
	var logo bytes.Buffer
	if err := png.Encode(&logo, image.NewRGBA(image.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveStatusLogo(ctx, logo.Bytes()); err != nil {
		t.Fatal(err)
	}

	// A template of an admin's, the defaults, and an incident following it with a section of its own.
	tpl := models.TemplateInput{Name: "Security review", Sections: []models.TemplateSectionInput{{Heading: "Exposure", Prompt: "Who could read what?", Public: true}}}
	if errs := models.ValidateTemplate(&tpl); len(errs) > 0 {
		t.Fatal(errs)
	}
	if _, err := s.CreateTemplate(ctx, tpl); err != nil {
		t.Fatal(err)
	}
	if err := s.SetDefaultTemplates(ctx, map[string]string{"sev1": "security_review"}); err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 3, 17, 4, 0, 0, 0, time.UTC)
	due := time.Date(2026, 3, 20, 0, 0, 0, 0, time.UTC)
	sections := []models.SectionInput{{Slug: "exposure", Heading: "Exposure", Body: "No customer data was readable.", Public: true}}
	overdue := []models.FollowUpInput{{Title: "Rotate the CI token", Kind: "prevent", Priority: "p1", Status: "open", DueOn: &due, Factors: []string{"cold-caches"}}}
	leaked, err := s.CreateIncident(ctx, models.IncidentInput{Title: "Token in a CI log", Severity: "sev1", Status: "resolved", TimeZone: "UTC",
		PostmortemState: "draft", Template: "security_review", Sections: &sections, Services: []string{"CI"},
		Milestones: models.Milestones{StartedAt: &start}, MilestoneDays: []string{"started_at"}}, models.Children{FollowUps: &overdue})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddImage(ctx, leaked.ID, tinyPNG(t)); err != nil {
		t.Fatal(err)
	}

	// Components, one in a group, and a maintenance on one of them.
	group, err := s.SaveComponent(ctx, 0, models.ComponentInput{Name: "Platform", IsGroup: true, Showcase: true})
	if err != nil {
		t.Fatal(err)
	}
	api, err := s.SaveComponent(ctx, 0, models.ComponentInput{Name: "API", GroupID: group.ID, Position: 1, StartDate: "2026-01-05", Showcase: true, Services: []string{"CI"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateMaintenance(ctx, models.MaintenanceInput{Title: "Database upgrade", Public: true, Components: []int64{api.ID},
		ScheduledFor: start.Add(48 * time.Hour), ScheduledUntil: start.Add(50 * time.Hour)},
		models.MaintenanceUpdateInput{Status: "scheduled", Body: "We will upgrade the database."}); err != nil {
		t.Fatal(err)
	}

	// Subscribers: one confirmed with a choice of components, one waiting for its link.
	for _, email := range []string{"ops@example.com", "later@example.com"} {
		if err := s.Subscribe(ctx, models.SubscribeInput{Email: email, Components: []string{"API"}, IP: "192.0.2.1"}); err != nil {
			t.Fatal(err)
		}
	}
	db, err := s.SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	var token string
	if err := db.QueryRow("SELECT token FROM subscribers WHERE address = 'ops@example.com'").Scan(&token); err != nil {
		t.Fatal(err)
	}
	if err := s.ConfirmSubscriber(ctx, token); err != nil {
		t.Fatal(err)
	}

	// Integrations (PagerDuty's with the signing key it made) and an alert that opened an incident.
	if _, _, err := s.CreateIntegration(ctx, models.IntegrationInput{Kind: "pagerduty", Name: "PagerDuty", SigningKey: "pd-signing-key"}); err != nil {
		t.Fatal(err)
	}
	_, am, err := s.CreateIntegration(ctx, models.IntegrationInput{Kind: "alertmanager", Name: "Alertmanager"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReceiveAlerts(ctx, am, start, []models.AlertNotice{{DedupKey: "{}:{alertname=\"HighErrorRate\"}", Fingerprint: "f1", State: "firing",
		Title: "High error rate", Severity: "critical", Service: "API", StartsAt: &start}}); err != nil {
		t.Fatal(err)
	}

	// A webhook endpoint that wants overdue follow-ups, and the notice that one was announced.
	if _, err := s.CreateWebhookEndpoint(ctx, models.WebhookEndpointInput{URL: "https://hooks.example.com/hindsight", Description: "Ops channel",
		Events: []string{models.EventFollowUpOverdue, models.EventIncidentCreated}, Format: "standard", Enabled: true}, true); err != nil {
		t.Fatal(err)
	}
	if n, err := s.EnqueueOverdueFollowUps(ctx, due.Add(72*time.Hour)); err != nil || n == 0 {
		t.Fatalf("overdue follow-ups queued: %d, %v", n, err)
	}
}

// naturalKeyQueries read the tables whose ids a restore gives afresh by what identifies their
// rows instead: nothing refers to a template or an incident's section by id.
var naturalKeyQueries = map[string]string{
	"postmortem_templates": "SELECT slug, name, description, created_at, updated_at FROM postmortem_templates",
	"template_sections": `SELECT t.slug AS template, s.position, s.slug, s.heading, s.prompt, s.public, s.required
		FROM template_sections s JOIN postmortem_templates t ON t.id = s.template_id`,
	"incident_sections": "SELECT incident_id, position, slug, heading, body, public FROM incident_sections",
}

// tableContents reads a table as sorted lines of column=value, instants in UTC to the
// microsecond (the precision both databases keep).
func tableContents(t *testing.T, db *sql.DB, table string) []string {
	t.Helper()
	query, ok := naturalKeyQueries[table]
	if !ok {
		query = "SELECT * FROM " + table
	}
	rows, err := db.Query(query)
	if err != nil {
		t.Fatalf("%s: %v", table, err)
	}
	defer rows.Close()
	columns, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		values := make([]any, len(columns))
		ptrs := make([]any, len(columns))
		for n := range values {
			ptrs[n] = &values[n]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		parts := make([]string, len(columns))
		for n, c := range columns {
			v := values[n]
			switch x := v.(type) {
			case time.Time:
				v = x.UTC().Truncate(time.Microsecond).Format(time.RFC3339Nano)
			case []byte:
				v = string(x)
			}
			parts[n] = fmt.Sprintf("%s=%v", c, v)
		}
		out = append(out, strings.Join(parts, " "))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// A database with a row in every table the native export carries is exported, restored into an
// empty database, and every one of those tables holds the same rows there, on both databases.
func TestNativeRestoreCarriesEveryTable(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		fillEveryTable(t, s)
		var doc bytes.Buffer
		if err := native.Export(ctx, s, &doc); err != nil {
			t.Fatal(err)
		}
		var target *models.Store
		if s.Dialect() == "postgres" {
			target = storetest.Postgres(t)
		} else {
			target = storetest.SQLite(t)
		}
		summary, err := native.Import(ctx, target, bytes.NewReader(doc.Bytes()), "backup.json")
		if err != nil {
			t.Fatal(err)
		}
		if summary.Rows == 0 {
			t.Errorf("summary = %+v", summary)
		}
		from, err := s.SQLDB()
		if err != nil {
			t.Fatal(err)
		}
		to, err := target.SQLDB()
		if err != nil {
			t.Fatal(err)
		}
		for _, table := range schemaTables(t, s) {
			if models.DoctorTableKind(s.Dialect(), table) != "base" {
				continue
			}
			if kind, _ := models.NativeTableCoverage(table); kind != "typed" && kind != "verbatim" {
				continue
			}
			want, got := tableContents(t, from, table), tableContents(t, to, table)
			if len(want) == 0 {
				t.Errorf("%s: the fill wrote nothing to it, so the test proves nothing of it", table)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s after the restore:\n%s\nwant\n%s", table, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
		// What the brief names, seen through the store on the restored database.
		if sub, err := target.SubscriberCounts(ctx); err != nil || sub.Email != 1 || sub.Pending != 1 {
			t.Errorf("restored subscribers: %+v, %v", sub, err)
		}
		// The restored database takes new rows after the restored ids.
		if _, err := target.SaveComponent(ctx, 0, models.ComponentInput{Name: "Web", Showcase: true}); err != nil {
			t.Errorf("a new component after the restore: %v", err)
		}
	})
}

// The same database moved from SQLite to PostgreSQL exports the same bytes: every table carried
// row for row (booleans, bytes, instants, nulls) reads back alike on the other dialect.
func TestNativeEveryTableAcrossDatabases(t *testing.T) {
	pg := storetest.Postgres(t) // skips without PostgreSQL
	ctx := context.Background()
	sqlite := storetest.SQLite(t)
	fillEveryTable(t, sqlite)
	var first, second bytes.Buffer
	if err := native.Export(ctx, sqlite, &first); err != nil {
		t.Fatal(err)
	}
	if _, err := native.Import(ctx, pg, bytes.NewReader(first.Bytes()), "backup.json"); err != nil {
		t.Fatal(err)
	}
	if err := native.Export(ctx, pg, &second); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.Bytes(), second.Bytes()) {
		a, b := first.String(), second.String()
		n := 0
		for n < min(len(a), len(b)) && a[n] == b[n] {
			n++
		}
		t.Fatalf("SQLite → PostgreSQL differs at byte %d:\n%s\nwant\n%s", n, b[max(0, n-300):min(len(b), n+300)], a[max(0, n-300):min(len(a), n+300)])
	}
	for _, want := range []string{`"status_logo": [`, `"content_type": "image/png"`, `"confirmed_at": "`, `"signing_key": "pd-signing-key"`, `"dedup_key": `, `"milestone_days": "started_at"`} {
		if !strings.Contains(first.String(), want) {
			t.Errorf("export lacks %s", want)
		}
	}
}
