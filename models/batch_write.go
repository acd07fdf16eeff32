package models

import (
	"context"
	"fmt"
	"iter"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// The batch helpers that imports, the restore and the one writer of nested records
// (childWriter) share: statements a batch at a time, and history gathered and written in batches.

// Batch sizes keep every statement well under PostgreSQL's 65,535 bind parameters and SQLite's
// 32,766, whatever the number of columns.
const (
	importIncidentBatch = 200
	importRowBatch      = 500
	importINBatch       = 500
)

// factorIDMap maps factor slugs to ids; an unknown slug is a field error, as on a form.
func factorIDMap(tx *gorm.DB, slugs []string) (map[string]int64, error) {
	out := map[string]int64{}
	for chunk := range chunks(uniqueNames(slugs), importINBatch) {
		if _, err := factorIDs(tx, chunk, "factors"); err != nil {
			return nil, err
		}
		var rows []Factor
		if err := tx.Where("slug IN ?", chunk).Find(&rows).Error; err != nil {
			return nil, fmt.Errorf("find factors: %w", err)
		}
		for _, f := range rows {
			out[f.Slug] = f.ID
		}
	}
	return out, nil
}

// nameIDMap finds or creates the rows of a name table (services, regions) for every distinct
// name, a batch at a time, and maps each name to its id. Names are matched exactly, as namedIDs
// matches them for one incident: two incidents may spell a service differently, while each
// incident's own list drops repeats that differ only in case (uniqueNames).
func nameIDMap(tx *gorm.DB, table string, names []string) (map[string]int64, error) {
	seen := map[string]bool{}
	var clean []string
	for _, name := range names {
		if name = strings.TrimSpace(name); name != "" && !seen[name] {
			seen[name] = true
			clean = append(clean, name)
		}
	}
	out := make(map[string]int64, len(clean))
	now := time.Now().UTC().Truncate(time.Second)
	for chunk := range chunks(clean, importINBatch) {
		rows := make([]map[string]any, len(chunk))
		for n, name := range chunk {
			rows[n] = map[string]any{"name": name, "created_at": now}
		}
		if err := tx.Table(table).Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "name"}}, DoNothing: true}).Create(rows).Error; err != nil {
			return nil, fmt.Errorf("add %s: %w", table, err)
		}
		var found []struct {
			ID   int64
			Name string
		}
		if err := tx.Table(table).Select("id, name").Where("name IN ?", chunk).Find(&found).Error; err != nil {
			return nil, fmt.Errorf("find %s: %w", table, err)
		}
		for _, row := range found {
			out[row.Name] = row.ID
		}
	}
	return out, nil
}

// loadChildren reads one kind of nested record of the given incidents, for their history
// before they are replaced.
func loadChildren[T any](tx *gorm.DB, incidentIDs []int64, preload string) ([]T, error) {
	var out []T
	for chunk := range chunks(incidentIDs, importINBatch) {
		var rows []T
		q := tx.Where("incident_id IN ?", chunk).Order("id")
		if preload != "" {
			q = q.Preload(preload)
		}
		if err := q.Find(&rows).Error; err != nil {
			return nil, fmt.Errorf("load the records to replace: %w", err)
		}
		out = append(out, rows...)
	}
	return out, nil
}

// history gathers an import's audit entries, attributed to the context's actor, and writes them
// in batches rather than one statement per entry.
type history struct {
	actor   Actor
	at      time.Time
	entries []AuditEntry
}

func newHistory(ctx context.Context) *history {
	return &history{actor: actorFrom(ctx), at: time.Now().UTC()}
}

// add records a change as audit does; an update that changed nothing leaves no entry.
func (h *history) add(action, entity string, entityID, incidentID int64, before, after fields) error {
	entry, err := auditEntry(h.actor, h.at, action, entity, entityID, incidentID, before, after)
	if err != nil || entry == nil {
		return err
	}
	h.entries = append(h.entries, *entry)
	return nil
}

func (h *history) write(tx *gorm.DB) error {
	if len(h.entries) == 0 {
		return nil
	}
	if err := tx.CreateInBatches(&h.entries, importRowBatch).Error; err != nil {
		return fmt.Errorf("record history: %w", err)
	}
	return nil
}

// clearRows deletes the rows of each table that belong to the given incidents.
func clearRows(tx *gorm.DB, incidentIDs []int64, tables ...string) error {
	for chunk := range chunks(incidentIDs, importINBatch) {
		for _, table := range tables {
			if err := tx.Table(table).Where("incident_id IN ?", chunk).Delete(nil).Error; err != nil {
				return fmt.Errorf("clear %s: %w", table, err)
			}
		}
	}
	return nil
}

func insertMaps(tx *gorm.DB, table string, rows []map[string]any) error {
	for chunk := range chunks(rows, importRowBatch) {
		if err := tx.Table(table).Create(chunk).Error; err != nil {
			return fmt.Errorf("fill %s: %w", table, err)
		}
	}
	return nil
}

func nonZero(ids []int64) []int64 {
	out := ids[:0:0]
	for _, id := range ids {
		if id != 0 {
			out = append(out, id)
		}
	}
	return out
}

// chunks yields consecutive pieces of at most size elements.
func chunks[T any](list []T, size int) iter.Seq[[]T] {
	return func(yield func([]T) bool) {
		for start := 0; start < len(list); start += size {
			if !yield(list[start:min(start+size, len(list))]) {
				return
			}
		}
	}
}
