package models_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
)

// incidentTables lists the tables of the migrated database that hold rows of an incident: those
// with an incident_id column, and those whose rows belong to such a row (their foreign keys).
func incidentTables(t *testing.T, s *models.Store) []string {
	t.Helper()
	db, err := s.SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, table := range schemaTables(t, s) {
		query := fmt.Sprintf("SELECT name FROM pragma_table_info('%s')", table)
		if s.Dialect() == "postgres" {
			query = fmt.Sprintf("SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = '%s'", table)
		}
		rows, err := db.Query(query)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var column string
			if err := rows.Scan(&column); err != nil {
				t.Fatal(err)
			}
			switch column {
			case "incident_id", "impact_window_id", "follow_up_id", "from_id":
				out = append(out, table)
			}
		}
		rows.Close()
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestEveryIncidentTableMovesThePages walks the schema, not a list: every table that holds an
// incident's rows must be either written by a store method this test knows, which must move the
// incident's page mark, the list's mark and what another process reads of it, or be named as
// derived or history with a reason. A table added by a migration and forgotten by the write path
// fails here until someone says which store method writes it and proves its pages follow.
func TestEveryIncidentTableMovesThePages(t *testing.T) {
	storetest.EachShared(t, func(t *testing.T, open func() *models.Store) {
		ctx := context.Background()
		reader, writer := open(), open()
		start := time.Date(2026, 3, 9, 16, 0, 0, 0, time.UTC)
		file := func(title string) *models.Incident {
			inc, err := writer.CreateIncident(ctx, models.IncidentInput{Title: title, Severity: "sev2", Status: "resolved",
				TimeZone: "UTC", Services: []string{"Queue"}, Milestones: models.Milestones{StartedAt: &start}}, models.Children{})
			if err != nil {
				t.Fatal(err)
			}
			return inc
		}
		inc, other := file("Queue backed up"), file("Queue backed up again")
		var (
			window   *models.ImpactWindow
			followUp *models.FollowUp
			thread   *models.ReviewThread
		)
		reviewer, err := writer.CreateUser(ctx, models.UserInput{Email: "reviewer@example.com", Name: "Rita Reviewer", Role: "responder", Password: "correct horse battery"})
		if err != nil {
			t.Fatal(err)
		}
		// The store methods that write each table, run in order against inc.
		writes := map[string]func() error{
			"timeline_events": func() error {
				_, err := writer.CreateEvent(ctx, inc.ID, models.EventInput{At: start, Kind: "status_update", Status: "investigating", Public: true})
				return err
			},
			"impact_windows": func() (err error) {
				window, err = writer.CreateWindow(ctx, inc.ID, models.WindowInput{StartedAt: start, Level: "degraded"})
				return err
			},
			"impact_window_services": func() error {
				return writer.UpdateWindow(ctx, inc.ID, window.ID, models.WindowInput{StartedAt: start, Level: "degraded", Services: []string{"Edge"}})
			},
			"follow_ups": func() (err error) {
				followUp, err = writer.CreateFollowUp(ctx, inc.ID, models.FollowUpInput{Title: "Alert on depth", Kind: "detect", Priority: "p1", Status: "open"})
				return err
			},
			"follow_up_factors": func() error {
				return writer.UpdateFollowUp(ctx, inc.ID, followUp.ID, followUp.Version, models.FollowUpInput{Title: "Alert on depth", Kind: "detect",
					Priority: "p1", Status: "open", Factors: []string{"cold-caches"}})
			},
			"incident_services": func() error {
				return retag(ctx, writer, inc.ID, func(in *models.IncidentInput) { in.Services = []string{"Queue", "Edge"} })
			},
			"incident_regions": func() error {
				return retag(ctx, writer, inc.ID, func(in *models.IncidentInput) { in.Regions = []string{"EU"} })
			},
			"incident_factors": func() error {
				return retag(ctx, writer, inc.ID, func(in *models.IncidentInput) { in.Factors = []string{"retry-amplification"} })
			},
			"incident_links": func() error {
				_, err := writer.AddLink(ctx, inc.ID, models.LinkInput{Kind: "related", IncidentID: other.ID})
				return err
			},
			"similar_sets": func() error {
				current, err := writer.GetIncident(ctx, inc.ID)
				if err != nil {
					return err
				}
				_, err = models.NewSimilarKeeper(writer, slog.New(slog.NewTextHandler(io.Discard, nil))).For(ctx, current)
				return err
			},
			"incident_sections": func() error {
				return retag(ctx, writer, inc.ID, func(in *models.IncidentInput) {
					in.Sections = &[]models.SectionInput{{Slug: "where-we-got-lucky", Heading: "Where we got lucky", Body: "The queue drained by itself."}}
				})
			},
			"incident_images": func() error {
				_, err := writer.AddImage(ctx, inc.ID, tinyPNG(t))
				return err
			},
			"review_requests": func() error {
				return writer.RequestReview(ctx, inc.ID, []int64{reviewer.ID})
			},
			"review_threads": func() (err error) {
				thread, err = writer.StartThread(ctx, inc.ID, "root_cause", "Which change was it?")
				return err
			},
			"review_comments": func() error {
				return writer.Reply(ctx, inc.ID, thread.ID, "The config push at 16:02.")
			},
			"debriefs": func() error {
				_, err := writer.ScheduleDebrief(ctx, inc.ID, models.DebriefInput{StartsAt: start.Add(72 * time.Hour), DurationMinutes: 60, FacilitatorID: reviewer.ID})
				return err
			},
			"debrief_participants": func() error {
				_, err := writer.ScheduleDebrief(ctx, inc.ID, models.DebriefInput{StartsAt: start.Add(72 * time.Hour), DurationMinutes: 60,
					FacilitatorID: reviewer.ID, ParticipantIDs: []int64{reviewer.ID}})
				return err
			},
			"debrief_invitations": func() error {
				return writer.QueueInvitations(ctx, inc.ID, []models.Invitation{{Address: "reviewer@example.com", Subject: "Debrief", Body: "Come.", Calendar: "BEGIN:VCALENDAR"}})
			},
			"postmortem_versions": func() error {
				current, err := writer.GetIncident(ctx, inc.ID)
				if err != nil {
					return err
				}
				_, err = writer.SetPostmortemState(ctx, inc.ID, current.Version, models.PostmortemPublished)
				return err
			},
		}
		// Written by the same methods as another table above, or derived, or history.
		covered := map[string]string{
			"similar_suggestions":     "written with similar_sets, by the same keeper method",
			"statuspage_incidents":    "a Statuspage import's own fields, written by ImportIncidents with the incidents it records as changed",
			"incident_versions":       "the record of changes itself (changes.go)",
			"audit_entries":           "history: written with every change, shown on the history page, never kept",
			"timeline_events_fts":     "search documents (PostgreSQL), derived in triggers from timeline_events",
			"follow_ups_fts":          "search documents (PostgreSQL), derived in triggers from follow_ups",
			"milestone_sources":       "written with the incident's row by createIncident and updateIncident, which record the incident",
			"alert_groups":            "the alert receivers' own bookkeeping (which incident a group opened), shown on no page",
			"alert_states":            "the alert receivers' own bookkeeping (each alert's last state), shown on no page",
			"webhook_overdue_notices": "the webhook outbox's bookkeeping (which overdue follow-ups were announced), shown on no incident page",
			"webhook_deliveries":      "the webhook outbox, written with the change it announces, shown on no incident page",
			"subscriber_messages":     "the subscribers' outbox, written with the public update it announces, shown on no incident page",
		}
		order := []string{"timeline_events", "impact_windows", "impact_window_services", "follow_ups", "follow_up_factors",
			"incident_services", "incident_regions", "incident_factors", "incident_links", "similar_sets", "incident_sections",
			"incident_images",
			"review_requests",
			"review_threads",
			"review_comments",
			"debriefs",
			"debrief_participants",
			"debrief_invitations",
			"postmortem_versions"}
		for _, table := range incidentTables(t, writer) {
			if _, ok := writes[table]; !ok && covered[table] == "" {
				t.Errorf("table %s holds incidents' rows, but no store write of it is known to this test: write it through Store.inWrite, record the incident it touches, and add the method here", table)
			}
		}
		read := func(s *models.Store) string {
			t.Helper()
			got, err := s.GetIncident(ctx, inc.ID)
			if err != nil {
				t.Fatal(err)
			}
			out, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			return string(out)
		}
		for _, table := range order {
			page, err := reader.IncidentPageMark(ctx, inc.ID)
			if err != nil {
				t.Fatal(err)
			}
			list, err := reader.IncidentsMark(ctx)
			if err != nil {
				t.Fatal(err)
			}
			read(reader) // kept now
			if err := writes[table](); err != nil {
				t.Fatalf("%s: %v", table, err)
			}
			if after, _ := reader.IncidentPageMark(ctx, inc.ID); after == page {
				t.Errorf("a write of %s left the incident's page mark in another process", table)
			}
			if after, _ := reader.IncidentsMark(ctx); after == list {
				t.Errorf("a write of %s left the list's mark in another process", table)
			}
			if got, want := read(reader), read(open()); got != want {
				t.Errorf("after a write of %s another process's incident differs from a fresh read:\n got %s\nwant %s", table, got, want)
			}
			if got, want := totals(reader), totals(open()); got != want {
				t.Errorf("after a write of %s another process's list totals differ from a fresh read:\n got %s\nwant %s", table, got, want)
			}
			if report, err := writer.Doctor(ctx); err != nil || !report.OK() {
				t.Errorf("after a write of %s the doctor finds derived state differing (%v): %+v", table, err, report.Tables)
			}
		}
	})
}

// totals is what the list pages total: the incidents by status and the follow-ups by status,
// overall and per factor and service, as the store keeps them.
func totals(s *models.Store) string {
	ctx := context.Background()
	var out strings.Builder
	for _, status := range append([]string{""}, models.Statuses...) {
		_, n, err := s.ListIncidentSummaries(ctx, models.IncidentFilter{Status: status, Limit: 1})
		fmt.Fprintf(&out, "incidents %q: %d %v\n", status, n, err)
	}
	for _, f := range []models.FollowUpFilter{{}, {Factor: "cold-caches"}, {Service: "Edge"}, {Owner: "x"}, {Due: "none"}} {
		f.Limit = 1
		_, counts, err := s.ListFollowUps(ctx, f)
		fmt.Fprintf(&out, "follow-ups %+v: %v %d %d %d %v\n", f, counts.ByStatus, counts.Overdue, counts.Unowned, counts.Total, err)
	}
	return out.String()
}

// retag edits an incident's tags through the store, as the form does.
func retag(ctx context.Context, s *models.Store, id int64, change func(*models.IncidentInput)) error {
	current, err := s.GetIncident(ctx, id)
	if err != nil {
		return err
	}
	in := models.IncidentInput{Title: current.Title, Summary: current.Summary, Severity: current.Severity, Status: current.Status,
		TimeZone: current.TimeZone, PostmortemState: current.PostmortemState, Public: current.Public,
		Services: current.ServiceNames(), Regions: current.RegionNames(), Factors: current.FactorSlugs(), Milestones: current.Milestones()}
	change(&in)
	_, err = s.UpdateIncident(ctx, id, current.Version, in, models.Children{})
	return err
}
