package models

import (
	"context"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"
)

// publicIncidentColumns are the only incident columns the status page reads: none of the
// narrative, which reaches the public solely through a published PostmortemVersion.
var publicIncidentColumns = []string{
	"id", "title", "severity", "status", "time_zone", "started_at", "mitigated_at", "resolved_at",
	"postmortem_state", "published_at", "public", "created_at", "updated_at",
}

// openPublic is the condition of incidents_public_open_idx (migration 00038), written out rather
// than bound, so that SQLite sees the query implies it and reads the few open public incidents
// from it instead of filtering every public one.
const openPublic = "status <> 'resolved'"

// PublicFilter narrows the status page's incidents.
type PublicFilter struct {
	OpenOnly bool // only those not resolved
	Limit    int  // 50 when zero
	Offset   int
}

// publicIncidents reads public incidents with their services, their public timeline entries and
// their impact windows without notes: nothing internal is even loaded.
func (s *Store) publicIncidents(ctx context.Context) *gorm.DB {
	return s.read.WithContext(ctx).Model(&Incident{}).Select(publicIncidentColumns).Where("public").
		Preload("Services", orderByName).
		Preload("Timeline", func(db *gorm.DB) *gorm.DB {
			return db.Where("public").Order("at, id")
		}).
		Preload("ImpactWindows", func(db *gorm.DB) *gorm.DB {
			return db.Select("id", "incident_id", "started_at", "ended_at", "level", "created_at", "updated_at").Order("started_at, id")
		}).
		Preload("ImpactWindows.Services", orderByName)
}

// PublicIncidents lists public incidents for the status page, newest start first, and how many
// match in all.
func (s *Store) PublicIncidents(ctx context.Context, f PublicFilter) ([]Incident, int64, error) {
	count := s.read.WithContext(ctx).Model(&Incident{}).Where("public")
	if f.OpenOnly {
		count = count.Where(openPublic)
	}
	var total int64
	if err := count.Count(&total).Error; err != nil {
		return nil, 0, fmt.Errorf("count public incidents: %w", err)
	}
	if f.Limit <= 0 {
		f.Limit = 50
	}
	page := func(q *gorm.DB) *gorm.DB {
		if f.OpenOnly {
			q = q.Where(openPublic)
		}
		return q.Order(s.startedDesc()).Order("id DESC").Limit(f.Limit).Offset(f.Offset)
	}
	var incidents []Incident
	if err := page(s.publicIncidents(ctx)).Find(&incidents).Error; err != nil {
		incidents, err = s.readablePublicIncidents(ctx, page, s.publicIncidents, err)
		if err != nil {
			return nil, 0, fmt.Errorf("list public incidents: %w", err)
		}
	}
	return incidents, total, nil
}

// readablePublicIncidents is the status page's way round a record it cannot read (a value stored
// before input was checked, or written past the application): after the page's query failed
// with listErr, it reads the page's ids alone and loads each incident on its own, passing over
// those that fail, so one bad record leaves the status page, its feed and its API serving the
// rest. When even the ids cannot be read, the database is the trouble and listErr is returned.
func (s *Store) readablePublicIncidents(ctx context.Context, page func(*gorm.DB) *gorm.DB, load func(context.Context) *gorm.DB, listErr error) ([]Incident, error) {
	var ids []int64
	if err := page(s.read.WithContext(ctx).Model(&Incident{}).Where("public")).Pluck("id", &ids).Error; err != nil {
		return nil, listErr
	}
	incidents := make([]Incident, 0, len(ids))
	for _, id := range ids {
		var inc Incident
		if err := load(ctx).Where("id = ?", id).Take(&inc).Error; err == nil {
			incidents = append(incidents, inc)
		}
	}
	return incidents, nil
}

// PublicIncident loads one public incident as the status page may show it; a private or deleted
// one is ErrNotFound.
func (s *Store) PublicIncident(ctx context.Context, id int64) (*Incident, error) {
	var inc Incident
	if err := s.publicIncidents(ctx).Where("id = ?", id).Take(&inc).Error; err != nil {
		return nil, notFound(err, fmt.Sprintf("public incident %d", id))
	}
	return &inc, nil
}

// PublicIncidentList lists every public incident's id, title, severity, status, start and
// postmortem state, newest first, for the status page's history. Of its children only the
// impact windows' levels are loaded (one IN query), since the public impact is their worst.
func (s *Store) PublicIncidentList(ctx context.Context, limit, offset int) ([]Incident, int64, error) {
	var total int64
	if err := s.read.WithContext(ctx).Model(&Incident{}).Where("public").Count(&total).Error; err != nil {
		return nil, 0, fmt.Errorf("count public incidents: %w", err)
	}
	page := func(q *gorm.DB) *gorm.DB {
		return q.Order(s.startedDesc()).Order("id DESC").Limit(limit).Offset(offset)
	}
	var incidents []Incident
	if err := page(s.publicListColumns(ctx)).Find(&incidents).Error; err != nil {
		incidents, err = s.readablePublicIncidents(ctx, page, s.publicListColumns, err)
		if err != nil {
			return nil, 0, fmt.Errorf("list public incidents: %w", err)
		}
	}
	return incidents, total, nil
}

// PublicResolvedHistory lists the newest limit resolved public incidents, as the status page's
// recent history shows them (PublicIncidentList's columns), and whether there are more. It reads
// limit+1 rows through incidents_status_started_idx rather than counting every public incident.
func (s *Store) PublicResolvedHistory(ctx context.Context, limit int) ([]Incident, bool, error) {
	page := func(q *gorm.DB) *gorm.DB {
		return q.Where("status = 'resolved'").Order(s.startedDesc()).Order("id DESC").Limit(limit + 1)
	}
	var incidents []Incident
	if err := page(s.publicListColumns(ctx)).Find(&incidents).Error; err != nil {
		incidents, err = s.readablePublicIncidents(ctx, page, s.publicListColumns, err)
		if err != nil {
			return nil, false, fmt.Errorf("list resolved public incidents: %w", err)
		}
	}
	if len(incidents) > limit {
		return incidents[:limit], true, nil
	}
	return incidents, false, nil
}

// publicListColumns reads public incidents' listed columns with their impact windows' levels.
func (s *Store) publicListColumns(ctx context.Context) *gorm.DB {
	return s.read.WithContext(ctx).Model(&Incident{}).Select(publicIncidentColumns).Where("public").
		Preload("ImpactWindows", func(db *gorm.DB) *gorm.DB { return db.Select("id", "incident_id", "level") })
}

// PublicUpdatedAt is when a public incident last changed, or nil when there is none.
func (s *Store) PublicUpdatedAt(ctx context.Context) (*time.Time, error) {
	var incidents []Incident
	err := s.read.WithContext(ctx).Model(&Incident{}).Select("updated_at").Where("public").Order("updated_at DESC").Limit(1).Find(&incidents).Error
	if err != nil {
		return nil, fmt.Errorf("last public change: %w", err)
	}
	if len(incidents) == 0 {
		return nil, nil
	}
	at := incidents[0].UpdatedAt.UTC()
	return &at, nil
}

// ChangeMark is a number that grows with every change to the records, in any process: the
// generation of the last change seen (versions.go). The status page caches what it serves under
// it.
func (s *Store) ChangeMark(ctx context.Context) (int64, error) {
	g, err := s.syncVersions(ctx)
	return int64(g), err
}

// ServiceLevels works out each service's impact level at an instant from incidents' impact
// windows: the worst level among the windows that have begun and not ended and that name it. A
// window naming no service covers every service of its incident. Services without impact are
// left out.
func ServiceLevels(incidents []Incident, now time.Time) map[string]string {
	rank := map[string]int{"degraded": 1, "partial_outage": 2, "major_outage": 3}
	levels := map[string]string{}
	for n := range incidents {
		inc := &incidents[n]
		for _, w := range inc.ImpactWindows {
			end := WindowEnd(w, inc)
			if w.StartedAt.After(now) || (end != nil && !end.After(now)) {
				continue
			}
			names := w.ServiceNames()
			if len(names) == 0 {
				names = inc.ServiceNames()
			}
			for _, name := range names {
				if rank[w.Level] > rank[levels[name]] {
					levels[name] = w.Level
				}
			}
		}
	}
	return levels
}

// PublicEvents returns an incident's public timeline entries, newest first, as the status page
// lists them.
func PublicEvents(inc *Incident) []TimelineEvent {
	var out []TimelineEvent
	for _, ev := range inc.Timeline {
		if ev.Public {
			out = append(out, ev)
		}
	}
	slices.Reverse(out)
	return out
}

// countWrites counts every writing statement of this process. Reads go through the query and
// row callbacks, so on PostgreSQL, where one pool serves both, they are not counted.
func (s *Store) countWrites() error {
	count := func(*gorm.DB) {
		s.writes.Add(1)
		s.wakeCheckpoints()
	}
	cb := s.write.Callback()
	for _, err := range []error{
		cb.Create().After("gorm:create").Register("hindsight:writes", count),
		cb.Update().After("gorm:update").Register("hindsight:writes", count),
		cb.Delete().After("gorm:delete").Register("hindsight:writes", count),
		cb.Raw().After("gorm:raw").Register("hindsight:writes", count),
	} {
		if err != nil {
			return fmt.Errorf("register write counter: %w", err)
		}
	}
	return nil
}

// LocalWrites is how many writing statements this process has run. It moves with every write
// made here, before the write commits; ChangeMark is what moves with every committed write of
// every process. Together they let a cache skip asking the database while nothing was written
// here and it asked a moment ago.
func (s *Store) LocalWrites() int64 { return s.writes.Load() }
