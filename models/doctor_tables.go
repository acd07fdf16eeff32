package models

// The tables of a migrated database as the doctor sees them. Every table is a base table, a
// derived table the doctor checks, or derived state it says plainly it does not check: a test
// (TestDoctorKnowsEveryTable) lists the tables of both schemas and fails on any other, so a new
// table cannot be added without saying here what it is.

// doctorBaseTables hold what people and imports wrote; everything else is derived from them.
// incident_factors and follow_up_factors are base tables with derived columns (the recurrence
// copies), checked as such.
var doctorBaseTables = []string{
	"services", "regions", "incidents", "incident_services", "incident_regions", "timeline_events",
	"impact_windows", "impact_window_services", "follow_ups", "users", "sessions", "api_tokens",
	"login_failures", "audit_entries", "factors", "incident_factors", "follow_up_factors",
	"incident_links", "calendar_feeds", "postmortem_versions", "settings", "goose_db_version",
	"language_rules_off", "oidc_identities", "components", "component_services", "maintenances",
	"maintenance_components", "maintenance_updates", "integrations", "alert_groups", "alert_states", "milestone_sources",
	// Webhook endpoints, their outbox, its log, and which overdue follow-ups were announced.
	"webhook_endpoints", "webhook_deliveries", "webhook_attempts", "webhook_overdue_notices",
	// The status page's subscribers and their outbox (what is still to be sent is a record of
	// what was made public, not derived from it), and the subscribe form's throttle.
	"subscribers", "subscriber_components", "subscriber_messages", "subscriber_deliveries", "subscribe_attempts",
	"statuspage_incidents", "statuspage_updates", "status_logo",
	"postmortem_templates", "template_sections", "template_defaults", "incident_sections",
	"incident_images",
	// The review and the debrief (issue 18), and the debrief invitations' outbox.
	"review_requests",
	"review_threads",
	"review_comments",
	"debriefs",
	"debrief_participants",
	"debrief_invitations",
}

// DoctorTableKind says what the doctor takes a table of the given dialect's schema for: "base",
// "derived" (checked), "not checked" (with the reason in doctorNotChecked), or "" for a table it
// does not know.
func DoctorTableKind(dialect, table string) string {
	if containsString(doctorBaseTables, table) {
		return "base"
	}
	for _, spec := range doctorTables(dialect) {
		if spec.table == table || containsString(spec.covers, table) {
			return "derived"
		}
	}
	for _, skip := range doctorNotChecked(dialect) {
		if skip.Table == table {
			return "not checked"
		}
	}
	if dialect == "sqlite" {
		// FTS5 keeps each full-text table in shadow tables of its own; they are checked through
		// the full-text table.
		for _, fts := range []string{"incidents_fts", "timeline_events_fts", "follow_ups_fts"} {
			for _, shadow := range []string{"_data", "_idx", "_content", "_docsize", "_config"} {
				if table == fts+shadow {
					return "derived"
				}
			}
		}
	}
	return ""
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// doctorNotChecked is derived state the doctor cannot recompute and does not check.
func doctorNotChecked(dialect string) []DoctorSkip {
	return []DoctorSkip{
		{"incident_versions", "when each incident last changed, compared for change only: any value, and no row at all, is valid, and nothing in the base tables says what it should be"},
		{"similar rankings' order and scores", "a ranking is kept as it was ranked and may lag the incidents by up to an hour, so it is not ranked again; its references are checked"},
	}
}

func doctorTables(dialect string) []doctorSpec {
	pg := dialect == "postgres"
	intCol := func(name string) doctorColumn { return doctorColumn{name: name, typ: doctorInt} }
	textCol := func(name string) doctorColumn { return doctorColumn{name: name, typ: doctorText} }
	// SQL that differs between the dialects.
	unix := func(t string) string { return "unixepoch(" + t + ")" }
	later := "max"
	if pg {
		unix = func(t string) string { return "CAST(floor(EXTRACT(EPOCH FROM " + t + ")) AS BIGINT)" }
		later = "GREATEST"
	}
	fixed := "CASE WHEN u.status = 'done' AND u.done_at IS NOT NULL AND i.started_at IS NOT NULL THEN " +
		unix(later+"(u.done_at, i.started_at)") + " END"
	if !pg {
		fixed = "CASE WHEN u.status = 'done' AND u.done_at IS NOT NULL AND i.started_at IS NOT NULL THEN " +
			"max(unixepoch(u.done_at), unixepoch(i.started_at)) END"
	}
	narrative := `i.customer_impact || ' ' || i.root_cause || ' ' || i."trigger" || ' ' || i.detection || ' ' || i.response || ' ' || i.lessons`
	similarID := doctorColumn{name: "incident_id", typ: doctorInt}

	specs := []doctorSpec{
		{
			name: "incident_factors recurrence copy (started_unix, live)", table: "incident_factors", mode: doctorColumns,
			keys:   []doctorColumn{intCol("incident_id"), intCol("factor_id")},
			values: []doctorColumn{intCol("started_unix"), {name: "live", typ: doctorBool}},
			want: "SELECT f.incident_id, f.factor_id, " + unix("i.started_at") + ` AS started_unix, i.deleted_at IS NULL AS live
				FROM incident_factors f JOIN incidents i ON i.id = f.incident_id`,
			got: "SELECT incident_id, factor_id, started_unix, live FROM incident_factors",
		},
		{
			name: "follow_up_factors recurrence copy (fixed_unix, kind, live)", table: "follow_up_factors", mode: doctorColumns,
			keys:   []doctorColumn{intCol("follow_up_id"), intCol("factor_id")},
			values: []doctorColumn{intCol("fixed_unix"), textCol("kind"), {name: "live", typ: doctorBool}},
			want: "SELECT ff.follow_up_id, ff.factor_id, " + fixed + ` AS fixed_unix, u.kind AS kind, i.deleted_at IS NULL AS live
				FROM follow_up_factors ff JOIN follow_ups u ON u.id = ff.follow_up_id JOIN incidents i ON i.id = u.incident_id`,
			got: "SELECT follow_up_id, factor_id, fixed_unix, kind, live FROM follow_up_factors",
		},
	}
	if pg {
		doc := doctorColumn{name: "document", typ: doctorTSVector}
		specs = append(specs,
			doctorSpec{
				name: "incidents_fts", table: "incidents_fts", mode: doctorRows,
				keys: []doctorColumn{intCol("id")}, values: []doctorColumn{doc},
				want: "SELECT i.id, to_tsvector('english', i.title || ' ' || i.summary || ' ' || " + narrative + ") AS document FROM incidents i",
				got:  "SELECT id, document FROM incidents_fts",
			},
			doctorSpec{
				name: "timeline_events_fts", table: "timeline_events_fts", mode: doctorRows,
				keys: []doctorColumn{intCol("id")}, values: []doctorColumn{intCol("incident_id"), doc},
				want: "SELECT id, incident_id, to_tsvector('english', body) AS document FROM timeline_events",
				got:  "SELECT id, incident_id, document FROM timeline_events_fts",
			},
			doctorSpec{
				name: "follow_ups_fts", table: "follow_ups_fts", mode: doctorRows,
				keys: []doctorColumn{intCol("id")}, values: []doctorColumn{intCol("incident_id"), doc},
				want: "SELECT id, incident_id, to_tsvector('english', title || ' ' || description || ' ' || verification) AS document FROM follow_ups",
				got:  "SELECT id, incident_id, document FROM follow_ups_fts",
			},
		)
	} else {
		// FTS5 keeps each row's text as written, under the record's id as its rowid.
		rowid := func() doctorColumn { return doctorColumn{name: "id", column: "rowid", typ: doctorInt} }
		specs = append(specs,
			doctorSpec{
				name: "incidents_fts", table: "incidents_fts", mode: doctorRows,
				keys:   []doctorColumn{rowid()},
				values: []doctorColumn{textCol("title"), textCol("summary"), textCol("narrative")},
				want:   "SELECT i.id, i.title, i.summary, " + narrative + " AS narrative FROM incidents i",
				got:    "SELECT rowid AS id, title, summary, narrative FROM incidents_fts",
			},
			doctorSpec{
				name: "timeline_events_fts", table: "timeline_events_fts", mode: doctorRows,
				keys: []doctorColumn{rowid()}, values: []doctorColumn{textCol("body")},
				want: "SELECT id, body FROM timeline_events",
				got:  "SELECT rowid AS id, body FROM timeline_events_fts",
			},
			doctorSpec{
				name: "follow_ups_fts", table: "follow_ups_fts", mode: doctorRows,
				keys:   []doctorColumn{rowid()},
				values: []doctorColumn{textCol("title"), textCol("description"), textCol("verification")},
				want:   "SELECT id, title, description, verification FROM follow_ups",
				got:    "SELECT rowid AS id, title, description, verification FROM follow_ups_fts",
			},
		)
	}
	specs = append(specs,
		doctorSpec{
			name: "similar rankings", table: "similar_sets", covers: []string{"similar_suggestions"}, mode: doctorStray,
			checked: "each ranking belongs to an incident and names existing incidents other than its own",
			keys:    []doctorColumn{similarID},
			total:   "SELECT count(*) FROM similar_sets",
			got: `SELECT st.incident_id FROM similar_sets st WHERE NOT EXISTS (SELECT 1 FROM incidents i WHERE i.id = st.incident_id)
				UNION SELECT x.incident_id FROM similar_suggestions x
				WHERE x.similar_id = x.incident_id
					OR NOT EXISTS (SELECT 1 FROM similar_sets st WHERE st.incident_id = x.incident_id)
					OR NOT EXISTS (SELECT 1 FROM incidents i WHERE i.id = x.similar_id)`,
			// A ranking found wrong is dropped whole: the incident is then ranked again in the
			// background or on its next view, as one never ranked.
			deletes: []string{
				"DELETE FROM similar_suggestions WHERE incident_id = " + param(similarID, dialect),
				"DELETE FROM similar_sets WHERE incident_id = " + param(similarID, dialect),
			},
		},
	)
	return specs
}
