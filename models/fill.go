package models

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Sample services, regions and wording that FillSample spreads its incidents over, so that text
// search and similarity see a vocabulary rather than one sentence ten thousand times.
var (
	sampleServices = []string{"Orchestrator", "Action Center", "Authorization Service", "Router"}
	sampleRegions  = []string{"Canada", "Europe", "US"}
	sampleSymptoms = []string{"elevated errors", "slow responses", "failed sign-ins", "delayed notifications",
		"timeouts on document uploads", "stale dashboards", "dropped webhooks", "partial outage of the API",
		"queue backlog", "certificate expiry", "DNS resolution failures", "replication lag"}
	sampleSummaries = []string{
		"Requests failed for a subset of customers.",
		"A configuration change rolled out to every region at once.",
		"Caches came up cold after a restart and the database took the full load.",
		"Clients retried without backoff and amplified the load.",
		"Health checks removed slow but working machines from rotation.",
		"A dependency degraded and our timeouts were longer than the path needed.",
		"Capacity headroom ran out during a traffic peak.",
		"Alerts fired on failures but not on latency, so customers noticed first.",
	}
)

// FillSample adds n synthetic incidents in one transaction, for load tests, benchmarks and
// query-count tests: ten thousand take a few seconds on SQLite. They start an hour apart going
// back from 2026-01-01, carry the usual milestones, and are spread over four services, three
// regions and every severity, status, detection method and postmortem state. It writes no
// history: these records were never typed by anyone.
func (s *Store) FillSample(ctx context.Context, n int) error {
	db, err := s.write.DB()
	if err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("fill: %w", err)
	}
	defer tx.Rollback()
	now := time.Now().UTC().Truncate(time.Second)
	serviceIDs, err := sampleNameIDs(ctx, tx, "services", sampleServices, now)
	if err != nil {
		return err
	}
	regionIDs, err := sampleNameIDs(ctx, tx, "regions", sampleRegions, now)
	if err != nil {
		return err
	}
	insertIncident, err := tx.PrepareContext(ctx, `INSERT INTO incidents (title, summary, severity, status,
		detection_method, time_zone, started_at, detected_at, resolved_at, postmortem_state, version,
		created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, 'UTC', $6, $7, $8, $9, 1, $10, $10) RETURNING id`)
	if err != nil {
		return fmt.Errorf("fill: %w", err)
	}
	defer insertIncident.Close()
	insertService, err := tx.PrepareContext(ctx, `INSERT INTO incident_services (incident_id, service_id) VALUES ($1, $2)`)
	if err != nil {
		return fmt.Errorf("fill: %w", err)
	}
	defer insertService.Close()
	insertRegion, err := tx.PrepareContext(ctx, `INSERT INTO incident_regions (incident_id, region_id) VALUES ($1, $2)`)
	if err != nil {
		return fmt.Errorf("fill: %w", err)
	}
	defer insertRegion.Close()

	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		start := base.Add(-time.Duration(i) * time.Hour)
		detected := start.Add(time.Duration(5+i%240) * time.Minute)
		resolved := start.Add(time.Duration(60+i%600) * time.Minute)
		var id int64
		err := insertIncident.QueryRowContext(ctx,
			fmt.Sprintf("%s: %s in %s (#%d)", sampleServices[i%len(sampleServices)], sampleSymptoms[i%len(sampleSymptoms)],
				sampleRegions[i%len(sampleRegions)], i), sampleSummaries[(i/3)%len(sampleSummaries)],
			Severities[i%4], Statuses[i%4], DetectionMethods[i%5],
			start, detected, resolved, PostmortemStates[i%4], now).Scan(&id)
		if err != nil {
			return fmt.Errorf("fill incident %d: %w", i, err)
		}
		if _, err := insertService.ExecContext(ctx, id, serviceIDs[i%len(serviceIDs)]); err != nil {
			return fmt.Errorf("fill incident %d: %w", i, err)
		}
		if _, err := insertRegion.ExecContext(ctx, id, regionIDs[i%len(regionIDs)]); err != nil {
			return fmt.Errorf("fill incident %d: %w", i, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("fill: %w", err)
	}
	// Every process's copies are read again.
	return s.RecordEverything(ctx)
}

// sampleNameIDs finds or creates the named rows of services or regions, in the order given.
func sampleNameIDs(ctx context.Context, tx *sql.Tx, table string, names []string, now time.Time) ([]int64, error) {
	ids := make([]int64, len(names))
	for n, name := range names {
		if _, err := tx.ExecContext(ctx, `INSERT INTO `+table+` (name, created_at) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, name, now); err != nil {
			return nil, fmt.Errorf("fill %s: %w", table, err)
		}
		if err := tx.QueryRowContext(ctx, `SELECT id FROM `+table+` WHERE name = $1`, name).Scan(&ids[n]); err != nil {
			return nil, fmt.Errorf("fill %s: %w", table, err)
		}
	}
	return ids, nil
}
