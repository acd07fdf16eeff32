package models

import (
	"context"
	"fmt"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// What the whole-database export (package native) needs beyond the incidents: the published
// postmortem versions and the site settings, read verbatim and restored in the same
// transaction as the rest.

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

// RestoreDatabaseWithPublishing is RestoreDatabase followed, in the same transaction, by the
// published postmortem versions and the settings that publishing returns once the snapshot has
// been read (they may come after the history in a document). Versions are written verbatim, ids
// and numbers included, so no version is recorded afresh for a restored published postmortem;
// settings replace any of the same key. An error from publishing rolls everything back.
// The incidents' images, when given, are written after them.
func (s *Store) RestoreDatabaseWithPublishing(ctx context.Context, snap Snapshot, publishing func() ([]PostmortemVersion, []Setting, error), images ...IncidentImage) (RestoreCounts, error) {
	var counts RestoreCounts
	err := s.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// RestoreDatabase's own transaction becomes a savepoint inside this one.
		inner := &Store{read: tx, write: tx, dialect: s.dialect}
		var err error
		if counts, err = inner.RestoreDatabase(ctx, snap); err != nil {
			return err
		}
		if err := restoreImages(tx, s.dialect, images); err != nil {
			return fmt.Errorf("restore database: %w", err)
		}
		versions, settings, err := publishing()
		if err != nil {
			return fmt.Errorf("restore database: %w", err)
		}
		if len(versions) > 0 {
			if err := tx.CreateInBatches(&versions, importRowBatch).Error; err != nil {
				return fmt.Errorf("restore database: postmortem versions: %w", err)
			}
		}
		if len(settings) > 0 {
			err := tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "key"}}, DoUpdates: clause.AssignmentColumns([]string{"value"})}).Create(&settings).Error
			if err != nil {
				return fmt.Errorf("restore database: settings: %w", err)
			}
		}
		if s.dialect == "postgres" {
			err := tx.Exec(`SELECT setval(pg_get_serial_sequence('postmortem_versions', 'id'), COALESCE((SELECT MAX(id) FROM postmortem_versions), 0) + 1, false)`).Error
			if err != nil {
				return fmt.Errorf("restore database: reset the postmortem versions id sequence: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return RestoreCounts{}, err
	}
	return counts, nil
}
