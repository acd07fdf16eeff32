package models

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
)

// FollowUpFilter narrows the list of follow-ups across all incidents. Empty fields do not filter.
type FollowUpFilter struct {
	Owner    string
	Mine     []string // the signed-in user's names: owner matches any of them
	Status   string   // one status, or "active" for open and in progress
	Kind     string
	Priority string
	Service  string
	Factor   string // slug
	Due      string // overdue, week, none
	Sort     string // due (default), priority, newest, status
	Limit    int
	Offset   int
	Now      time.Time
}

// FollowUpCounts summarise the filtered follow-ups, whatever their status.
type FollowUpCounts struct {
	ByStatus map[string]int64
	Overdue  int64
	Unowned  int64
	Total    int64
}

func today(now time.Time) time.Time {
	if now.IsZero() {
		now = time.Now()
	}
	y, m, d := now.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// filterFollowUps applies every filter but status, which the counts are broken down by.
func (s *Store) filterFollowUps(db *gorm.DB, f FollowUpFilter) *gorm.DB {
	// Deleted incidents are few: leaving out their follow-ups through that small set is far cheaper
	// than joining every follow-up to its incident.
	q := db.Model(&FollowUp{}).Where("follow_ups.incident_id NOT IN (SELECT id FROM incidents WHERE deleted_at IS NOT NULL)")
	if f.Owner != "" {
		q = q.Where("follow_ups.owner = ?", f.Owner)
	}
	if len(f.Mine) > 0 {
		q = q.Where("follow_ups.owner IN ?", f.Mine)
	}
	if f.Kind != "" {
		q = q.Where("follow_ups.kind = ?", f.Kind)
	}
	if f.Priority != "" {
		q = q.Where("follow_ups.priority = ?", f.Priority)
	}
	if f.Service != "" {
		q = q.Where("follow_ups.incident_id IN (SELECT incident_id FROM incident_services JOIN services ON services.id = incident_services.service_id WHERE services.name = ?)", f.Service)
	}
	if f.Factor != "" {
		q = q.Where("follow_ups.id IN (SELECT follow_up_id FROM follow_up_factors JOIN factors ON factors.id = follow_up_factors.factor_id WHERE factors.slug = ?)", f.Factor)
	}
	day := today(f.Now)
	switch f.Due {
	case "overdue":
		q = q.Where("follow_ups.due_on < ? AND follow_ups.status IN ('open', 'in_progress')", day)
	case "week":
		q = q.Where("follow_ups.due_on >= ? AND follow_ups.due_on <= ? AND follow_ups.status IN ('open', 'in_progress')", day, day.AddDate(0, 0, 7))
	case "none":
		q = q.Where("follow_ups.due_on IS NULL")
	}
	return q
}

func withStatus(q *gorm.DB, status string) *gorm.DB {
	switch status {
	case "":
		return q
	case "active":
		return q.Where("follow_ups.status IN ('open', 'in_progress')")
	}
	return q.Where("follow_ups.status = ?", status)
}

// ListFollowUps returns one page of follow-ups across incidents with their incident and factors,
// the number that match, and counts by status, overdue and unowned under the other filters.
func (s *Store) ListFollowUps(ctx context.Context, f FollowUpFilter) ([]FollowUp, FollowUpCounts, error) {
	db := s.read.WithContext(ctx)
	counts := FollowUpCounts{ByStatus: map[string]int64{}}
	var rows []struct {
		Status  string
		N       int64
		Overdue int64
		Unowned int64
	}
	day := today(f.Now)
	err := s.filterFollowUps(db, f).
		Select("follow_ups.status AS status, COUNT(*) AS n, "+
			"SUM(CASE WHEN follow_ups.due_on < ? AND follow_ups.status IN ('open', 'in_progress') THEN 1 ELSE 0 END) AS overdue, "+
			"SUM(CASE WHEN follow_ups.owner = '' AND follow_ups.status IN ('open', 'in_progress') THEN 1 ELSE 0 END) AS unowned", day).
		Group("follow_ups.status").Scan(&rows).Error
	if err != nil {
		return nil, counts, fmt.Errorf("count follow-ups: %w", err)
	}
	for _, r := range rows {
		counts.ByStatus[r.Status] = r.N
		counts.Overdue += r.Overdue
		counts.Unowned += r.Unowned
		switch {
		case f.Status == "", f.Status == r.Status, f.Status == "active" && (r.Status == "open" || r.Status == "in_progress"):
			counts.Total += r.N
		}
	}
	if f.Limit <= 0 {
		f.Limit = 50
	}
	var list []FollowUp
	q := withStatus(s.filterFollowUps(db, f), f.Status).
		Preload("Incident", func(db *gorm.DB) *gorm.DB { return db.Select("id", "title", "severity", "time_zone", "started_at") }).
		Preload("Factors", orderByName)
	switch f.Sort {
	case "priority":
		q = q.Order("follow_ups.priority").Order(s.nullsLast("follow_ups.due_on", false))
	case "newest":
		q = q.Order("follow_ups.id DESC")
	case "status":
		q = q.Order("follow_ups.status").Order(s.nullsLast("follow_ups.due_on", false))
	default:
		q = q.Order(s.dueFirst())
	}
	if err := q.Order("follow_ups.id").Limit(f.Limit).Offset(f.Offset).Find(&list).Error; err != nil {
		return nil, counts, fmt.Errorf("list follow-ups: %w", err)
	}
	return list, counts, nil
}

// dueFirst orders by due date, soonest first and undated last, in the form the indexes of
// migration 00005 serve.
func (s *Store) dueFirst() string {
	if s.dialect == "postgres" {
		return "follow_ups.due_on ASC NULLS LAST"
	}
	return "COALESCE(follow_ups.due_on, '9999-12-31')"
}

// nullsLast orders a column with unknown values last on both databases.
func (s *Store) nullsLast(column string, desc bool) string {
	dir := " ASC"
	if desc {
		dir = " DESC"
	}
	if s.dialect == "postgres" {
		return column + dir + " NULLS LAST"
	}
	return column + " IS NULL, " + column + dir
}

// GetFollowUp loads one follow-up with its incident and factors.
func (s *Store) GetFollowUp(ctx context.Context, id int64) (*FollowUp, error) {
	var f FollowUp
	err := s.read.WithContext(ctx).Preload("Incident").Preload("Factors", orderByName).
		Where("follow_ups.incident_id IN (SELECT id FROM incidents WHERE deleted_at IS NULL)").First(&f, id).Error
	if err != nil {
		return nil, notFound(err, fmt.Sprintf("follow-up %d", id))
	}
	return &f, nil
}

// FollowUpHistory lists the recorded changes of one follow-up, newest first.
func (s *Store) FollowUpHistory(ctx context.Context, id int64) ([]AuditEntry, error) {
	var entries []AuditEntry
	err := s.read.WithContext(ctx).Where("entity = ? AND entity_id = ?", EntityFollowUp, id).Order("at DESC, id DESC").Find(&entries).Error
	if err != nil {
		return nil, fmt.Errorf("history of follow-up %d: %w", id, err)
	}
	return entries, nil
}

// FollowUpChanges lists the latest changes to follow-ups, newest first, optionally of one owner's.
func (s *Store) FollowUpChanges(ctx context.Context, owner string, limit int) ([]AuditEntry, error) {
	q := s.read.WithContext(ctx).Where("entity = ?", EntityFollowUp)
	if owner != "" {
		q = q.Where("entity_id IN (SELECT id FROM follow_ups WHERE owner = ?)", owner)
	}
	var entries []AuditEntry
	if err := q.Order("at DESC, id DESC").Limit(limit).Find(&entries).Error; err != nil {
		return nil, fmt.Errorf("follow-up changes: %w", err)
	}
	return entries, nil
}

// SetFollowUpStatus moves many follow-ups to one status, each with its version bumped and its
// change recorded. It returns how many it changed; ids that do not exist are skipped.
func (s *Store) SetFollowUpStatus(ctx context.Context, ids []int64, status string) (int, error) {
	if !slices.Contains(FollowUpStatuses, status) {
		return 0, FieldErrors{{Field: "status", Message: "Must be one of: " + strings.Join(FollowUpStatuses, ", ") + "."}}
	}
	changed := 0
	err := s.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var list []FollowUp
		if err := tx.Preload("Factors").Where("id IN ?", ids).Find(&list).Error; err != nil {
			return fmt.Errorf("load follow-ups: %w", err)
		}
		for n := range list {
			current := list[n]
			if current.Status == status {
				continue
			}
			in := FollowUpInput{
				Title: current.Title, Description: current.Description, Kind: current.Kind, Priority: current.Priority,
				Owner: current.Owner, DueOn: current.DueOn, Status: status, TrackerURL: current.TrackerURL,
				Verification: current.Verification, Factors: current.FactorSlugs(),
			}
			row := followUpRow(current.IncidentID, in, &current)
			row.ID, row.Version = current.ID, current.Version+1
			if err := updateChild(tx.Where("version = ?", current.Version), current.IncidentID, current.ID, &row, "follow-up"); err != nil {
				return err
			}
			if err := audit(tx, ActionUpdate, EntityFollowUp, current.ID, current.IncidentID, followUpFields(&current, current.FactorSlugs()), followUpFields(&row, in.Factors)); err != nil {
				return err
			}
			changed++
		}
		return nil
	})
	return changed, err
}

// OwnerNames lists every owner named on a follow-up, for filters.
func (s *Store) OwnerNames(ctx context.Context) ([]string, error) {
	var names []string
	err := s.read.WithContext(ctx).Model(&FollowUp{}).Where("owner <> ''").Distinct("owner").Order("owner").Pluck("owner", &names).Error
	if err != nil {
		return nil, fmt.Errorf("list owners: %w", err)
	}
	return names, nil
}

// FollowUpStatusLabel writes a follow-up status in words.
func FollowUpStatusLabel(status string) string {
	return map[string]string{"open": "open", "in_progress": "in progress", "done": "done", "wont_do": "won't do"}[status]
}
