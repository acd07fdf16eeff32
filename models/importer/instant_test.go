package importer_test

import (
	"context"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/importer"
	"hindsight/models/storetest"
)

// An imported record with an instant outside the years 0001–9999 in some zone is refused with the
// field named, and nothing is written, on both databases.
func TestImportRefusesOutOfRangeTimes(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		late := time.Date(9999, 12, 31, 23, 59, 0, 0, time.FixedZone("", -12*3600))
		early := time.Date(0, 1, 1, 0, 0, 0, 0, time.FixedZone("", 14*3600))
		in := models.IncidentInput{Title: "Imported", Severity: "sev3", Status: "resolved", TimeZone: "UTC",
			PostmortemState: "none", Source: "test", ExternalID: "x1", Milestones: models.Milestones{ResolvedAt: &late}}
		rec := importer.Record{File: "f.json", Input: in, Children: models.Children{Timeline: &[]models.EventInput{{At: early, Kind: "note"}}}}
		errs := importer.Check(rec)
		if errs.For("resolved_at") != models.InstantMessage || errs.For("timeline[0].at") != models.InstantMessage {
			t.Errorf("Check = %v, want both times refused", errs)
		}
		if _, err := importer.Run(ctx, s, []importer.Record{rec}, importer.Options{}); err == nil || !importer.IsInvalid(err) {
			t.Errorf("Run = %v, want an invalid-record error", err)
		}
		if _, total, err := s.ListIncidents(ctx, models.IncidentFilter{}); err != nil || total != 0 {
			t.Errorf("after a refused import: %d incidents, %v", total, err)
		}
	})
}
