package models

import (
	"context"
	"fmt"

	"gorm.io/gorm/clause"
)

// The whole-database export's reads (package native): every incident, name, factor, link, history
// entry, published version and setting, read a batch at a time in id order.

// IncidentsBySource loads the incidents imported from source with the given external ids, deleted
// ones included, with everything GetIncident loads, keyed by external id. Importers compare them
// with what they are about to write.
func (s *Store) IncidentsBySource(ctx context.Context, source string, externalIDs []string) (map[string]*Incident, error) {
	out := make(map[string]*Incident, len(externalIDs))
	for chunk := range chunks(externalIDs, importINBatch) {
		var incidents []Incident
		db := s.read.WithContext(ctx)
		if err := db.Unscoped().Omit(clause.Associations).Where("source = ? AND external_id IN ?", source, chunk).Find(&incidents).Error; err != nil {
			return nil, fmt.Errorf("find %s incidents: %w", source, err)
		}
		if err := loadNested(db, pointers(incidents)...); err != nil {
			return nil, err
		}
		for n := range incidents {
			out[incidents[n].ExternalID] = &incidents[n]
		}
	}
	return out, nil
}

// EachIncident calls fn with every incident, deleted ones included, in id order, batch at a time,
// each loaded like GetIncident. A whole-database export reads through it in bounded memory.
func (s *Store) EachIncident(ctx context.Context, batch int, fn func([]Incident) error) error {
	if batch <= 0 {
		batch = 200
	}
	var after int64
	for {
		var incidents []Incident
		db := s.read.WithContext(ctx)
		if err := db.Unscoped().Omit(clause.Associations).Where("id > ?", after).Order("id").Limit(batch).Find(&incidents).Error; err != nil {
			return fmt.Errorf("read incidents after %d: %w", after, err)
		}
		if err := loadNested(db, pointers(incidents)...); err != nil {
			return err
		}
		if len(incidents) == 0 {
			return nil
		}
		if err := fn(incidents); err != nil {
			return err
		}
		after = incidents[len(incidents)-1].ID
	}
}

// AllServices returns every service row in id order, for a whole-database export.
func (s *Store) AllServices(ctx context.Context) ([]Service, error) {
	var rows []Service
	if err := s.read.WithContext(ctx).Order("id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list services: %w", err)
	}
	return rows, nil
}

// AllRegions returns every region row in id order, for a whole-database export.
func (s *Store) AllRegions(ctx context.Context) ([]Region, error) {
	var rows []Region
	if err := s.read.WithContext(ctx).Order("id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list regions: %w", err)
	}
	return rows, nil
}

// AllFactors returns the factor taxonomy in id order, for a whole-database export.
func (s *Store) AllFactors(ctx context.Context) ([]Factor, error) {
	var rows []Factor
	if err := s.read.WithContext(ctx).Order("id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list factors: %w", err)
	}
	return rows, nil
}

// OutgoingLinks returns the links that start at each of the incidents, in id order.
func (s *Store) OutgoingLinks(ctx context.Context, incidentIDs []int64) (map[int64][]IncidentLink, error) {
	out := map[int64][]IncidentLink{}
	for chunk := range chunks(incidentIDs, importINBatch) {
		var links []IncidentLink
		if err := s.read.WithContext(ctx).Where("from_id IN ?", chunk).Order("id").Find(&links).Error; err != nil {
			return nil, fmt.Errorf("list links: %w", err)
		}
		for _, l := range links {
			out[l.FromID] = append(out[l.FromID], l)
		}
	}
	return out, nil
}

// EachAuditEntry calls fn with every history entry in id order, a batch at a time.
func (s *Store) EachAuditEntry(ctx context.Context, batch int, fn func([]AuditEntry) error) error {
	if batch <= 0 {
		batch = 1000
	}
	var after int64
	for {
		var entries []AuditEntry
		if err := s.read.WithContext(ctx).Where("id > ?", after).Order("id").Limit(batch).Find(&entries).Error; err != nil {
			return fmt.Errorf("read history after %d: %w", after, err)
		}
		if len(entries) == 0 {
			return nil
		}
		if err := fn(entries); err != nil {
			return err
		}
		after = entries[len(entries)-1].ID
	}
}

// PostmortemVersionsOf lists the published versions of these incidents, by incident and then
// version, oldest first, in one query per batch of ids.
func (s *Store) PostmortemVersionsOf(ctx context.Context, incidentIDs []int64) (map[int64][]PostmortemVersion, error) {
	out := map[int64][]PostmortemVersion{}
	for batch := range chunks(incidentIDs, importINBatch) {
		var versions []PostmortemVersion
		if err := s.read.WithContext(ctx).Where("incident_id IN ?", batch).Order("incident_id, version").Find(&versions).Error; err != nil {
			return nil, fmt.Errorf("postmortem versions: %w", err)
		}
		for _, v := range versions {
			out[v.IncidentID] = append(out[v.IncidentID], v)
		}
	}
	return out, nil
}

// AllSettings reads every stored site setting as it is stored, by key; settings never saved,
// which take their defaults, are absent.
func (s *Store) AllSettings(ctx context.Context) ([]Setting, error) {
	var rows []Setting
	if err := s.read.WithContext(ctx).Order("key").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("read settings: %w", err)
	}
	return rows, nil
}

// pointers returns a pointer to each of the incidents.
func pointers(incidents []Incident) []*Incident {
	out := make([]*Incident, len(incidents))
	for n := range incidents {
		out[n] = &incidents[n]
	}
	return out
}
