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
	Owner string
	Mine  []string // the signed-in user's names: owner matches any of them
	// OwnerID, when set, chooses one account's follow-ups: those stored with its id, and of those
	// whose owner has no account, the ones whose owner text is one of OwnerNames (its email and
	// name). "Mine" and an account's calendar use it, so a follow-up follows the person, not the
	// spelling; the text alone is the fallback for owners without an account.
	OwnerID    int64
	OwnerNames []string
	Status     string // one status, or "active" for open and in progress
	Kind       string
	Priority   string
	Service    string
	Factor     string // slug
	Due        string // overdue, week, none
	Sort       string // due (default), priority, newest, status
	Limit      int
	Offset     int
	Now        time.Time
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

// followUpColumns applies the filters on a follow-up's own columns (owner, kind, priority, due
// date) to a query on table; noDue says how table writes an unknown due date. matchesColumns
// (list_counts.go) is the same in Go.
func followUpColumns(q *gorm.DB, table, noDue string, f FollowUpFilter) *gorm.DB {
	if f.OwnerID != 0 {
		// The kept totals have no owner_id: countFollowUps counts from follow_ups then.
		var names []string
		for _, n := range f.OwnerNames {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, n)
			}
		}
		if len(names) == 0 {
			q = q.Where(table+".owner_id = ?", f.OwnerID)
		} else {
			q = q.Where("("+table+".owner_id = ? OR ("+table+".owner_id IS NULL AND "+table+".owner IN ?))", f.OwnerID, names)
		}
	}
	if f.Owner != "" {
		q = q.Where(table+".owner = ?", f.Owner)
	}
	if len(f.Mine) > 0 {
		q = q.Where(table+".owner IN ?", f.Mine)
	}
	if f.Kind != "" {
		q = q.Where(table+".kind = ?", f.Kind)
	}
	if f.Priority != "" {
		q = q.Where(table+".priority = ?", f.Priority)
	}
	day := today(f.Now)
	switch f.Due {
	case "overdue":
		q = q.Where(table+".due_on < ? AND "+table+".status IN ('open', 'in_progress')", day)
	case "week":
		q = q.Where(table+".due_on >= ? AND "+table+".due_on <= ? AND "+table+".status IN ('open', 'in_progress')", day, day.AddDate(0, 0, 7))
	case "none":
		q = q.Where(table + ".due_on " + noDue)
	}
	return q
}

// Conditions on a follow-up's incident's services and its factors. The IN forms let the matching
// follow-ups drive the query, the EXISTS forms are checked row by row while an ordered index is
// walked.
const (
	serviceIn     = "follow_ups.incident_id IN (SELECT incident_id FROM incident_services JOIN services ON services.id = incident_services.service_id WHERE services.name = ?)"
	serviceExists = "EXISTS (SELECT 1 FROM incident_services WHERE incident_services.incident_id = follow_ups.incident_id AND incident_services.service_id = (SELECT id FROM services WHERE name = ?))"
	factorIn      = "follow_ups.id IN (SELECT follow_up_id FROM follow_up_factors JOIN factors ON factors.id = follow_up_factors.factor_id WHERE factors.slug = ?)"
	factorExists  = "EXISTS (SELECT 1 FROM follow_up_factors WHERE follow_up_factors.follow_up_id = follow_ups.id AND follow_up_factors.factor_id = (SELECT id FROM factors WHERE slug = ?))"
)

// filterFollowUps applies every filter but status, which the counts are broken down by, to a
// query on follow_ups; walk picks the row-by-row forms of the service and factor conditions.
func (s *Store) filterFollowUps(q *gorm.DB, f FollowUpFilter, walk bool) *gorm.DB {
	// Deleted incidents are few: leaving out their follow-ups through that small set is far cheaper
	// than joining every follow-up to its incident.
	q = q.Where("follow_ups.incident_id NOT IN (SELECT id FROM incidents WHERE deleted_at IS NOT NULL)")
	if f.Service != "" {
		q = q.Where(map[bool]string{false: serviceIn, true: serviceExists}[walk], f.Service)
	}
	if f.Factor != "" {
		q = q.Where(map[bool]string{false: factorIn, true: factorExists}[walk], f.Factor)
	}
	return followUpColumns(q, "follow_ups", "IS NULL", f)
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

// countFollowUps counts the filtered follow-ups by status, with those overdue and unowned. The
// totals the store keeps in memory (list_counts.go) serve every filter but a service and a factor
// together, and one account's (its id is not in the totals' key), which are counted from the
// follow-ups themselves.
func (s *Store) countFollowUps(ctx context.Context, db *gorm.DB, f FollowUpFilter) (FollowUpCounts, error) {
	if (f.Service == "" || f.Factor == "") && f.OwnerID == 0 {
		factorID, serviceID, err := filterTagIDs(db, f)
		if err != nil {
			return FollowUpCounts{}, err
		}
		return s.countFollowUpsKept(ctx, f, factorID, serviceID)
	}
	counts := FollowUpCounts{ByStatus: map[string]int64{}}
	var rows []struct {
		Status  string
		N       int64
		Overdue int64
		Unowned int64
	}
	day := today(f.Now)
	q := s.filterFollowUps(db.Model(&FollowUp{}), f, false).Select(
		"follow_ups.status AS status, COUNT(*) AS n, "+
			"SUM(CASE WHEN follow_ups.due_on < ? AND follow_ups.status IN ('open', 'in_progress') THEN 1 ELSE 0 END) AS overdue, "+
			"SUM(CASE WHEN follow_ups.owner = '' AND follow_ups.status IN ('open', 'in_progress') THEN 1 ELSE 0 END) AS unowned", day).
		Group("follow_ups.status")
	if err := q.Scan(&rows).Error; err != nil {
		return counts, fmt.Errorf("count follow-ups: %w", err)
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
	return counts, nil
}

// filterTagIDs finds the ids of the factor and the service a follow-up filter names, in one
// statement: 0 where it names none, -1 where the name is not there.
func filterTagIDs(db *gorm.DB, f FollowUpFilter) (factorID, serviceID int64, err error) {
	if f.Factor == "" && f.Service == "" {
		return 0, 0, nil
	}
	err = db.Raw(`SELECT CASE WHEN ? = '' THEN 0 ELSE COALESCE((SELECT id FROM factors WHERE slug = ?), -1) END,
		CASE WHEN ? = '' THEN 0 ELSE COALESCE((SELECT id FROM services WHERE name = ?), -1) END`,
		f.Factor, f.Factor, f.Service, f.Service).Row().Scan(&factorID, &serviceID)
	if err != nil {
		return 0, 0, fmt.Errorf("find the filter's factor and service: %w", err)
	}
	return factorID, serviceID, nil
}

// followUpOrders are the list's sorts in each dialect's form. In SQLite's, an unknown due date
// is written as the indexes of migrations 00005 and 00009 write it.
var followUpOrders = map[string]struct{ sqlite, postgres string }{
	"due":      {"COALESCE(follow_ups.due_on, '9999-12-31'), follow_ups.id", "follow_ups.due_on ASC NULLS LAST, follow_ups.id"},
	"priority": {"follow_ups.priority, COALESCE(follow_ups.due_on, '9999-12-31'), follow_ups.id", "follow_ups.priority, follow_ups.due_on ASC NULLS LAST, follow_ups.id"},
	"status":   {"follow_ups.status, COALESCE(follow_ups.due_on, '9999-12-31'), follow_ups.id", "follow_ups.status, follow_ups.due_on ASC NULLS LAST, follow_ups.id"},
	"newest":   {"follow_ups.id DESC", "follow_ups.id DESC"},
}

// ListFollowUps returns one page of follow-ups across incidents with their incident and factors,
// the number that match, and counts by status, overdue and unowned under the other filters.
func (s *Store) ListFollowUps(ctx context.Context, f FollowUpFilter) ([]FollowUp, FollowUpCounts, error) {
	db := s.read.WithContext(ctx)
	counts, err := s.countFollowUps(ctx, db, f)
	if err != nil {
		return nil, counts, err
	}
	if f.Limit <= 0 {
		f.Limit = 50
	}
	if _, ok := followUpOrders[f.Sort]; !ok {
		f.Sort = "due"
	}
	var list []FollowUp
	q := db.Preload("Incident", func(db *gorm.DB) *gorm.DB { return db.Select("id", "title", "severity", "time_zone", "started_at") }).
		Preload("Factors", orderByName)
	if s.dialect == "postgres" {
		err = withStatus(s.filterFollowUps(q.Model(&FollowUp{}), f, false), f.Status).
			Order(followUpOrders[f.Sort].postgres).Limit(f.Limit).Offset(f.Offset).Find(&list).Error
	} else {
		list, err = s.listFollowUpsSQLite(db, q, f, counts.Total)
	}
	if err != nil {
		return nil, counts, fmt.Errorf("list follow-ups: %w", err)
	}
	return list, counts, nil
}

// listFollowUpsSQLite reads a page of follow-ups on SQLite. SQLite cannot tell how many rows a
// filter keeps, so it would rather collect every match through the most selective index and sort
// them all. When the counts say matches are many, walking an index that holds follow-ups in the
// page's order and checking each row reaches the page sooner, and the index is named: (status,
// due date) for the status sort; for the due-date sort, one walk per status through (owner,
// status, due date) when an owner is chosen and (status, due date) otherwise, merged here;
// (priority, due date) for priority; the table itself for newest.
func (s *Store) listFollowUpsSQLite(db, preload *gorm.DB, f FollowUpFilter, matches int64) ([]FollowUp, error) {
	var upper int64
	if err := db.Raw("SELECT COALESCE(MAX(id), 0) FROM follow_ups").Scan(&upper).Error; err != nil {
		return nil, err
	}
	order := followUpOrders[f.Sort].sqlite
	walk := matches > 0 && int64(f.Offset+f.Limit)*upper < matches*matches
	if !walk || f.Sort != "due" {
		table := map[string]string{"status": "follow_ups INDEXED BY follow_ups_status_list_idx",
			"priority": "follow_ups INDEXED BY follow_ups_priority_list_idx", "newest": "follow_ups NOT INDEXED"}[f.Sort]
		q := preload.Model(&FollowUp{})
		if walk {
			q = q.Table(table)
		}
		var list []FollowUp
		err := withStatus(s.filterFollowUps(q, f, walk), f.Status).Order(order).Limit(f.Limit).Offset(f.Offset).Find(&list).Error
		return list, err
	}
	index := "follow_ups_status_list_idx"
	if f.Owner != "" {
		index = "follow_ups_owner_list_idx"
	}
	statuses := FollowUpStatuses
	switch f.Status {
	case "":
	case "active":
		statuses = []string{"open", "in_progress"}
	default:
		statuses = []string{f.Status}
	}
	type key struct {
		ID  int64
		Due string
	}
	var keys []key
	for _, status := range statuses {
		var part []key
		err := s.filterFollowUps(db.Table("follow_ups INDEXED BY "+index), f, true).Where("follow_ups.status = ?", status).
			Select("follow_ups.id AS id, COALESCE(follow_ups.due_on, '9999-12-31') AS due").
			Order(order).Limit(f.Offset + f.Limit).Scan(&part).Error
		if err != nil {
			return nil, err
		}
		keys = append(keys, part...)
	}
	slices.SortFunc(keys, func(a, b key) int {
		if c := strings.Compare(a.Due, b.Due); c != 0 {
			return c
		}
		return int(a.ID - b.ID)
	})
	keys = keys[min(f.Offset, len(keys)):min(f.Offset+f.Limit, len(keys))]
	if len(keys) == 0 {
		return nil, nil
	}
	ids := make([]int64, len(keys))
	at := make(map[int64]int, len(keys))
	for n, k := range keys {
		ids[n], at[k.ID] = k.ID, n
	}
	var list []FollowUp
	if err := preload.Where("id IN ?", ids).Find(&list).Error; err != nil {
		return nil, err
	}
	slices.SortFunc(list, func(a, b FollowUp) int { return at[a.ID] - at[b.ID] })
	return list, nil
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
	err := s.inWrite(ctx, func(tx *gorm.DB, c *changes) error {
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
			row.ID, row.Version, row.OwnerID = current.ID, current.Version+1, current.OwnerID
			if err := updateChild(tx.Where("version = ?", current.Version), current.IncidentID, current.ID, &row, "follow-up"); err != nil {
				return err
			}
			c.recurrence(current.IncidentID)
			if err := audit(tx, ActionUpdate, EntityFollowUp, current.ID, current.IncidentID, followUpFields(&current, current.FactorSlugs()), followUpFields(&row, in.Factors)); err != nil {
				return err
			}
			if err := s.followUpWritten(tx, &current, &row); err != nil { // webhook events: outbox.go
				return err
			}
			changed++
		}
		return nil
	})
	return changed, err
}

// OwnerNames lists every owner named on a follow-up of a live incident, for filters, from the
// totals the store keeps (list_counts.go) rather than every follow-up.
func (s *Store) OwnerNames(ctx context.Context) ([]string, error) {
	names, err := s.ownerNamesKept(ctx)
	if err != nil {
		return nil, fmt.Errorf("list owners: %w", err)
	}
	return names, nil
}

// FollowUpStatusLabel writes a follow-up status in words.
func FollowUpStatusLabel(status string) string {
	return map[string]string{"open": "open", "in_progress": "in progress", "done": "done", "wont_do": "won't do"}[status]
}

// OwnerFilter is the filter of one owner's follow-ups: when the owner names exactly one enabled
// account (by email or name, ignoring case, as a follow-up's owner is matched when saved), that
// account's, by id, with the text as the fallback for follow-ups without an account; otherwise
// the owner text alone.
func (s *Store) OwnerFilter(ctx context.Context, owner string) (FollowUpFilter, error) {
	owner = strings.TrimSpace(owner)
	if owner == "" {
		return FollowUpFilter{}, nil
	}
	var users []User
	if err := s.read.WithContext(ctx).Select("id", "email", "name").
		Where("disabled_at IS NULL AND (LOWER(email) = LOWER(?) OR LOWER(name) = LOWER(?))", owner, owner).
		Limit(2).Find(&users).Error; err != nil {
		return FollowUpFilter{}, fmt.Errorf("match owner: %w", err)
	}
	if len(users) != 1 {
		return FollowUpFilter{Owner: owner}, nil
	}
	return FollowUpFilter{OwnerID: users[0].ID, OwnerNames: []string{owner, users[0].Email, users[0].Name}}, nil
}
