package models

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// ErrNotEmpty is returned by RestoreDatabase when the target already holds records.
var ErrNotEmpty = errors.New("the database is not empty")

// Snapshot is a whole database for RestoreDatabase. Incidents refer to services, regions and
// factors by id (the ids inside each incident, its windows and follow-ups included). Factors,
// when not nil, replace the taxonomy the migrations started the database with. Links are read
// once the incidents are all written, since they may point at any of them. Either sequence of
// pairs may stop the restore by yielding an error, which rolls everything back; Links, History
// and Rest may be nil.
type Snapshot struct {
	Services  []Service
	Regions   []Region
	Factors   []Factor
	Incidents iter.Seq2[*Incident, error]
	Links     iter.Seq[IncidentLink]
	History   iter.Seq2[*AuditEntry, error]
	// Templates are the templates admins wrote, TemplateDefaults each severity's default.
	Templates        []PostmortemTemplate
	TemplateDefaults map[string]string
	// Rest returns what is written once the history is: a document may hold it after the
	// history, so it is asked for only then. An error rolls everything back.
	Rest func() (SnapshotRest, error)
}

// SnapshotRest is what a restore writes after the history: the published postmortem versions,
// verbatim (ids and numbers included, so no version is recorded afresh for a restored published
// postmortem), the site settings (replacing any of the same key), and the tables carried row for
// row (NativeVerbatimTables).
type SnapshotRest struct {
	Versions []PostmortemVersion
	Settings []Setting
	Tables   []TableRows
}

// RestoreCounts says how many rows RestoreDatabase wrote.
type RestoreCounts struct {
	Services, Regions, Factors, Incidents, Events, Windows, FollowUps, Links, History int
	// Versions, Settings and Rows count the published versions, the settings and the rows of
	// the tables carried row for row.
	Versions, Settings, Rows int
}

// RestoreDatabase writes a whole-database export back, verbatim: ids, versions and every
// timestamp are kept, so links and URLs that name an id still work. It runs in one transaction
// and refuses, with ErrNotEmpty, a database that already holds incidents, services, regions,
// links, history or any row of the tables carried row for row. It writes no history of its own:
// the snapshot's history is the record.
func (s *Store) RestoreDatabase(ctx context.Context, snap Snapshot) (RestoreCounts, error) {
	var counts RestoreCounts
	err := s.inWrite(ctx, func(tx *gorm.DB, c *changes) error {
		c.everything()
		if err := checkEmpty(tx); err != nil {
			return err
		}
		if err := restoreNames(tx, snap, &counts); err != nil {
			return err
		}
		if err := restoreTemplates(tx, snap); err != nil {
			return err
		}
		if err := restoreIncidents(tx, c, snap.Incidents, &counts); err != nil {
			return err
		}
		if err := restoreLinks(tx, snap.Links, &counts); err != nil {
			return err
		}
		if err := restoreHistory(tx, snap.History, &counts); err != nil {
			return err
		}
		if err := restoreRest(tx, snap.Rest, &counts); err != nil {
			return err
		}
		return s.resetSequences(tx)
	})
	if err != nil {
		return RestoreCounts{}, fmt.Errorf("restore database: %w", err)
	}
	return counts, nil
}

func checkEmpty(tx *gorm.DB) error {
	for _, model := range []any{&Incident{}, &Service{}, &Region{}, &IncidentLink{}, &AuditEntry{}} {
		var n int64
		if err := tx.Unscoped().Model(model).Count(&n).Error; err != nil {
			return fmt.Errorf("check the database is empty: %w", err)
		}
		if n > 0 {
			return ErrNotEmpty
		}
	}
	empty, err := verbatimTablesEmpty(tx)
	if err != nil {
		return err
	}
	if !empty {
		return ErrNotEmpty
	}
	return nil
}

// restoreNames writes the services, regions and factor taxonomy.
func restoreNames(tx *gorm.DB, snap Snapshot, counts *RestoreCounts) error {
	if len(snap.Services) > 0 {
		if err := tx.CreateInBatches(&snap.Services, importRowBatch).Error; err != nil {
			return fmt.Errorf("restore services: %w", err)
		}
	}
	if len(snap.Regions) > 0 {
		if err := tx.CreateInBatches(&snap.Regions, importRowBatch).Error; err != nil {
			return fmt.Errorf("restore regions: %w", err)
		}
	}
	if snap.Factors != nil {
		// Nothing refers to the starting taxonomy yet: the database holds no incidents.
		if err := tx.Where("1 = 1").Delete(&Factor{}).Error; err != nil {
			return fmt.Errorf("clear the starting factors: %w", err)
		}
		if len(snap.Factors) > 0 {
			if err := tx.CreateInBatches(&snap.Factors, importRowBatch).Error; err != nil {
				return fmt.Errorf("restore factors: %w", err)
			}
		}
	}
	counts.Services, counts.Regions, counts.Factors = len(snap.Services), len(snap.Regions), len(snap.Factors)
	return nil
}

// restoreIncidents writes the incidents a batch at a time as the sequence yields them.
func restoreIncidents(tx *gorm.DB, c *changes, incidents iter.Seq2[*Incident, error], counts *RestoreCounts) error {
	if incidents == nil {
		return nil
	}
	var pending []*Incident
	for inc, err := range incidents {
		if err != nil {
			return err
		}
		pending = append(pending, inc)
		if len(pending) == importIncidentBatch {
			if err := restoreBatch(tx, c, pending, counts); err != nil {
				return err
			}
			pending = pending[:0]
		}
	}
	return restoreBatch(tx, c, pending, counts)
}

// restoreBatch writes incidents as they were stored, their tags, sections and nested records.
func restoreBatch(tx *gorm.DB, c *changes, incidents []*Incident, counts *RestoreCounts) error {
	if len(incidents) == 0 {
		return nil
	}
	rows := make([]Incident, len(incidents))
	var serviceLinks, regionLinks, factorLinks []map[string]any
	var sections []IncidentSection
	children := &childWriter{}
	for n, inc := range incidents {
		rows[n] = *inc
		rows[n].Services, rows[n].Regions, rows[n].Factors, rows[n].Sections = nil, nil, nil, nil
		rows[n].Timeline, rows[n].ImpactWindows, rows[n].FollowUps = nil, nil, nil
		for k, sec := range inc.Sections {
			sec.ID, sec.IncidentID, sec.Position = 0, inc.ID, k+1
			sections = append(sections, sec)
		}
		for _, f := range inc.Factors {
			factorLinks = append(factorLinks, map[string]any{"incident_id": inc.ID, "factor_id": f.ID})
		}
		for _, sv := range inc.Services {
			serviceLinks = append(serviceLinks, map[string]any{"incident_id": inc.ID, "service_id": sv.ID})
		}
		for _, r := range inc.Regions {
			regionLinks = append(regionLinks, map[string]any{"incident_id": inc.ID, "region_id": r.ID})
		}
		children.addStored(inc)
	}
	if err := tx.Omit(clause.Associations).CreateInBatches(&rows, importIncidentBatch).Error; err != nil {
		return fmt.Errorf("restore incidents: %w", err)
	}
	if len(sections) > 0 {
		if err := tx.CreateInBatches(&sections, importRowBatch).Error; err != nil {
			return fmt.Errorf("restore incident sections: %w", err)
		}
	}
	for _, links := range []struct {
		table string
		rows  []map[string]any
	}{{"incident_services", serviceLinks}, {"incident_regions", regionLinks}, {"incident_factors", factorLinks}} {
		if err := insertMaps(tx, links.table, links.rows); err != nil {
			return err
		}
	}
	if err := children.write(tx, c); err != nil {
		return err
	}
	counts.Incidents += len(rows)
	counts.Events += len(children.events)
	counts.Windows += len(children.windows)
	counts.FollowUps += len(children.followUps)
	return nil
}

func restoreLinks(tx *gorm.DB, seq iter.Seq[IncidentLink], counts *RestoreCounts) error {
	if seq == nil {
		return nil
	}
	var links []IncidentLink
	for link := range seq {
		links = append(links, link)
	}
	if len(links) > 0 {
		if err := tx.CreateInBatches(&links, importRowBatch).Error; err != nil {
			return fmt.Errorf("restore links: %w", err)
		}
	}
	counts.Links = len(links)
	return nil
}

func restoreHistory(tx *gorm.DB, seq iter.Seq2[*AuditEntry, error], counts *RestoreCounts) error {
	if seq == nil {
		return nil
	}
	var entries []AuditEntry
	flush := func() error {
		if len(entries) == 0 {
			return nil
		}
		if err := tx.CreateInBatches(&entries, importRowBatch).Error; err != nil {
			return fmt.Errorf("restore history: %w", err)
		}
		counts.History += len(entries)
		entries = entries[:0]
		return nil
	}
	for entry, err := range seq {
		if err != nil {
			return err
		}
		if entries = append(entries, *entry); len(entries) == importRowBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// restoreRest writes what follows the history: published versions, settings and the tables
// carried row for row.
func restoreRest(tx *gorm.DB, rest func() (SnapshotRest, error), counts *RestoreCounts) error {
	if rest == nil {
		return nil
	}
	r, err := rest()
	if err != nil {
		return err
	}
	if len(r.Versions) > 0 {
		if err := tx.CreateInBatches(&r.Versions, importRowBatch).Error; err != nil {
			return fmt.Errorf("postmortem versions: %w", err)
		}
	}
	if len(r.Settings) > 0 {
		err := tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "key"}}, DoUpdates: clause.AssignmentColumns([]string{"value"})}).Create(&r.Settings).Error
		if err != nil {
			return fmt.Errorf("settings: %w", err)
		}
	}
	rows, err := restoreTables(tx, r.Tables)
	if err != nil {
		return err
	}
	counts.Versions, counts.Settings, counts.Rows = len(r.Versions), len(r.Settings), rows
	return nil
}

// resetSequences moves PostgreSQL's identity sequences past the restored ids, so the next
// incident does not collide with one that was restored. SQLite needs nothing: it takes the
// largest id plus one.
func (s *Store) resetSequences(tx *gorm.DB) error {
	if s.dialect != "postgres" {
		return nil
	}
	for _, table := range []string{"services", "regions", "factors", "incidents", "timeline_events", "impact_windows", "follow_ups", "incident_links", "audit_entries", "postmortem_versions"} {
		query := fmt.Sprintf(`SELECT setval(pg_get_serial_sequence('%[1]s', 'id'), COALESCE((SELECT MAX(id) FROM %[1]s), 0) + 1, false)`, table)
		if err := tx.Exec(query).Error; err != nil {
			return fmt.Errorf("reset the %s id sequence: %w", strings.ReplaceAll(table, "_", " "), err)
		}
	}
	return resetVerbatimSequences(tx)
}

// restoreTemplates writes a snapshot's templates, with new ids (nothing refers to a template by
// id), and the severities' defaults.
func restoreTemplates(tx *gorm.DB, snap Snapshot) error {
	for _, t := range snap.Templates {
		t.ID = 0
		for n := range t.Sections {
			t.Sections[n].ID, t.Sections[n].TemplateID = 0, 0
		}
		if err := tx.Create(&t).Error; err != nil {
			return fmt.Errorf("restore template %q: %w", t.Slug, err)
		}
	}
	for _, sev := range Severities {
		if slug, ok := snap.TemplateDefaults[sev]; ok {
			if err := tx.Exec("INSERT INTO template_defaults (severity, template_slug) VALUES (?, ?)", sev, slug).Error; err != nil {
				return fmt.Errorf("restore default template of %s: %w", sev, err)
			}
		}
	}
	return nil
}
