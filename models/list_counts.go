package models

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"gorm.io/gorm"
)

// listCounts is this process's copy of the totals the incident list and the follow-up lists
// show: how many live incidents there are per status, severity and postmortem state, and how
// many follow-ups of live incidents per status, kind, priority, owner and due date, overall, per
// factor they address and per service of their incident. It replaces the counts tables the
// triggers of migrations 00007 and 00009 kept, which every write updated and every writer of the
// same key waited on (migration 00035): no write touches it. Each read first asks the version
// feed (versions.go) which incidents changed since the copy was made, in any process, and reads
// those incidents' contributions again, in two statements; a restore or repair reads everything.
type listCounts struct {
	mu    sync.Mutex
	ready bool
	mark  generation
	// incidents holds each live incident's key, and byIncident their totals.
	incidents  map[int64]incidentKey
	byIncident map[incidentKey]int64
	// followUps holds what each incident's follow-ups add to byFollowUp.
	followUps  map[int64][]followUpCount
	byFollowUp map[followUpKey]int64
}

// incidentKey is what the list totals are kept by.
type incidentKey struct{ status, severity, state string }

// followUpKey is what the follow-up totals are kept by. factorID and serviceID are 0 on the rows
// of every follow-up, a factor's id on the rows of the follow-ups addressing it, a service's id
// on the rows of the follow-ups of its incidents; due is the zero time for no due date.
type followUpKey struct {
	status, kind, priority, owner string
	due                           time.Time
	factorID, serviceID           int64
}

type followUpCount struct {
	key followUpKey
	n   int64
}

// countsReloadAbove is how many changed incidents make reading every contribution again cheaper
// than reading theirs.
const countsReloadAbove = 2000

// withCounts brings the copy up to date with every change committed before the call and runs fn
// on it, under its lock.
func (s *Store) withCounts(ctx context.Context, fn func(lc *listCounts)) error {
	gen, err := s.syncVersions(ctx)
	if err != nil {
		return err
	}
	lc := &s.counts
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if !lc.ready || gen != lc.mark {
		_, ids, all := s.changedSince(lc.mark)
		if !lc.ready || all || len(ids) > countsReloadAbove {
			err = lc.load(ctx, s, nil)
		} else if len(ids) > 0 {
			err = lc.load(ctx, s, ids)
		}
		if err != nil {
			lc.ready = false
			return err
		}
		lc.ready, lc.mark = true, gen
	}
	fn(lc)
	return nil
}

// load reads the contributions of the incidents named, or of all of them when ids is nil, and
// puts them in place of those kept.
func (lc *listCounts) load(ctx context.Context, s *Store, ids []int64) error {
	if ids == nil {
		lc.incidents, lc.byIncident = map[int64]incidentKey{}, map[incidentKey]int64{}
		lc.followUps, lc.byFollowUp = map[int64][]followUpCount{}, map[followUpKey]int64{}
	}
	db := s.read.WithContext(ctx)
	incidents := map[int64]incidentKey{}
	followUps := map[int64][]followUpCount{}
	for part := range chunks(ids, changesBatch) {
		if err := readCountedIncidents(db, part, incidents); err != nil {
			return err
		}
		if err := readCountedFollowUps(db, part, followUps); err != nil {
			return err
		}
	}
	if ids == nil {
		if err := readCountedIncidents(db, nil, incidents); err != nil {
			return err
		}
		if err := readAllCountedFollowUps(db, s.dialect, incidents, followUps); err != nil {
			return err
		}
	}
	for _, id := range ids {
		if k, ok := lc.incidents[id]; ok {
			lc.byIncident[k]--
			delete(lc.incidents, id)
		}
		for _, c := range lc.followUps[id] {
			lc.byFollowUp[c.key] -= c.n
		}
		delete(lc.followUps, id)
	}
	for id, k := range incidents {
		lc.incidents[id] = k
		lc.byIncident[k]++
	}
	for id, list := range followUps {
		lc.followUps[id] = list
		for _, c := range list {
			lc.byFollowUp[c.key] += c.n
		}
	}
	maps.DeleteFunc(lc.byIncident, func(_ incidentKey, n int64) bool { return n == 0 })
	maps.DeleteFunc(lc.byFollowUp, func(_ followUpKey, n int64) bool { return n == 0 })
	return nil
}

// readCountedIncidents reads the keys of the live incidents among ids, or of all when ids is nil.
func readCountedIncidents(db *gorm.DB, ids []int64, into map[int64]incidentKey) error {
	q, args := "SELECT id, status, severity, postmortem_state FROM incidents WHERE deleted_at IS NULL", []any(nil)
	if ids != nil {
		q, args = q+" AND id IN ?", []any{ids}
	}
	err := scanRows(db, q, func(scan func(...any) error) error {
		var id int64
		var k incidentKey
		if err := scan(&id, &k.status, &k.severity, &k.state); err != nil {
			return err
		}
		into[id] = k
		return nil
	}, args...)
	if err != nil {
		return fmt.Errorf("count incidents: %w", err)
	}
	return nil
}

// countedFollowUpsSQL reads, per incident, how many of its follow-ups there are per key: the rows
// of every follow-up, of each factor a follow-up addresses, and of each service of its incident.
// %[1]s is a condition on u.incident_id.
const countedFollowUpsSQL = `SELECT u.incident_id, u.status, u.kind, u.priority, u.owner, u.due_on, 0, 0, count(*)
	FROM follow_ups u JOIN incidents i ON i.id = u.incident_id AND i.deleted_at IS NULL WHERE %[1]s
	GROUP BY u.incident_id, u.status, u.kind, u.priority, u.owner, u.due_on
	UNION ALL SELECT u.incident_id, u.status, u.kind, u.priority, u.owner, u.due_on, ff.factor_id, 0, count(*)
	FROM follow_ups u JOIN incidents i ON i.id = u.incident_id AND i.deleted_at IS NULL
	JOIN follow_up_factors ff ON ff.follow_up_id = u.id WHERE %[1]s
	GROUP BY u.incident_id, u.status, u.kind, u.priority, u.owner, u.due_on, ff.factor_id
	UNION ALL SELECT u.incident_id, u.status, u.kind, u.priority, u.owner, u.due_on, 0, s.service_id, count(*)
	FROM follow_ups u JOIN incidents i ON i.id = u.incident_id AND i.deleted_at IS NULL
	JOIN incident_services s ON s.incident_id = u.incident_id WHERE %[1]s
	GROUP BY u.incident_id, u.status, u.kind, u.priority, u.owner, u.due_on, s.service_id`

// readCountedFollowUps reads the follow-up contributions of the incidents among ids, or of all
// when ids is nil.
func readCountedFollowUps(db *gorm.DB, ids []int64, into map[int64][]followUpCount) error {
	cond, args := "true", []any(nil)
	if ids != nil {
		cond, args = "u.incident_id IN ?", []any{ids, ids, ids}
	}
	err := scanRows(db, fmt.Sprintf(countedFollowUpsSQL, cond), func(scan func(...any) error) error {
		var id int64
		var c followUpCount
		var due sql.NullTime
		if err := scan(&id, &c.key.status, &c.key.kind, &c.key.priority, &c.key.owner, &due,
			&c.key.factorID, &c.key.serviceID, &c.n); err != nil {
			return err
		}
		if due.Valid {
			c.key.due = dateOnly(due.Time)
		}
		into[id] = append(into[id], c)
		return nil
	}, args...)
	if err != nil {
		return fmt.Errorf("count follow-ups: %w", err)
	}
	return nil
}

// readAllCountedFollowUps reads every live incident's follow-up contributions, as
// readCountedFollowUps would, from the base rows themselves: the follow-ups, what factors they
// address and the services of their incidents, three plain reads added up here (followUpTally).
// Grouping in SQL sorted some 900,000 joined rows at 100,000 incidents and 300,000 follow-ups;
// live holds the live incidents' keys, already read.
func readAllCountedFollowUps(db *gorm.DB, dialect string, live map[int64]incidentKey, into map[int64][]followUpCount) error {
	t := &followUpTally{live: live, words: map[string]string{}, days: map[string]time.Time{}}
	if err := t.readFollowUps(db, dialect); err != nil {
		return fmt.Errorf("count follow-ups: %w", err)
	}
	err := scanRows(db, "SELECT follow_up_id, factor_id FROM follow_up_factors", func(scan func(...any) error) error {
		var id, factor int64
		if err := scan(&id, &factor); err != nil {
			return err
		}
		if id >= 0 && id < int64(len(t.byID)) && t.byID[id].incident != 0 {
			t.add(t.byID[id].incident, t.byID[id].key, factor, 0)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("count follow-ups by factor: %w", err)
	}
	err = scanRows(db, "SELECT incident_id, service_id FROM incident_services", func(scan func(...any) error) error {
		var incident, service int64
		if err := scan(&incident, &service); err != nil {
			return err
		}
		if incident >= 0 && incident < int64(len(t.ofIncident)) {
			for _, id := range t.ofIncident[incident] {
				t.add(incident, t.byID[id].key, 0, service)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("count follow-ups by service: %w", err)
	}
	for incident, list := range t.counts {
		if len(list) > 0 {
			into[int64(incident)] = list
		}
	}
	return nil
}

// followUpTally adds up follow-up contributions in slices indexed by id (ids are handed out in
// order, so they are dense): at these sizes maps were most of the time.
type followUpTally struct {
	live       map[int64]incidentKey
	byID       []tallied         // by follow-up id
	ofIncident [][]int64         // follow-up ids, by incident id
	counts     [][]followUpCount // contributions, by incident id
	words      map[string]string
	days       map[string]time.Time
}

type tallied struct {
	incident int64
	key      followUpKey
}

// readFollowUps reads the live incidents' follow-ups, each counted once with its key.
func (t *followUpTally) readFollowUps(db *gorm.DB, dialect string) error {
	due := "substr(CAST(due_on AS TEXT), 1, 10)"
	if dialect == "postgres" {
		due = "to_char(due_on, 'YYYY-MM-DD')"
	}
	var status, kind, priority, owner, day sql.RawBytes
	return scanRows(db, "SELECT id, incident_id, status, kind, priority, owner, "+due+" FROM follow_ups", func(scan func(...any) error) error {
		var id, incident int64
		if err := scan(&id, &incident, &status, &kind, &priority, &owner, &day); err != nil {
			return err
		}
		if _, ok := t.live[incident]; !ok || id <= 0 {
			return nil
		}
		key := followUpKey{status: t.word(status), kind: t.word(kind), priority: t.word(priority), owner: t.word(owner)}
		if day != nil {
			d, err := t.day(day)
			if err != nil {
				return fmt.Errorf("due date of follow-up %d: %w", id, err)
			}
			key.due = d
		}
		t.byID = grow(t.byID, id)
		t.byID[id] = tallied{incident, key}
		t.ofIncident = grow(t.ofIncident, incident)
		t.ofIncident[incident] = append(t.ofIncident[incident], id)
		t.add(incident, key, 0, 0)
		return nil
	})
}

// add counts one follow-up under key, with a factor's or a service's id or neither. An incident
// has a few keys: each is found by a look along its own short list.
func (t *followUpTally) add(incident int64, key followUpKey, factorID, serviceID int64) {
	key.factorID, key.serviceID = factorID, serviceID
	t.counts = grow(t.counts, incident)
	list := t.counts[incident]
	for n := range list {
		if list[n].key == key {
			list[n].n++
			return
		}
	}
	t.counts[incident] = append(list, followUpCount{key, 1})
}

// word is one spelling of a status, kind, priority or owner, shared by every row that has it.
func (t *followUpTally) word(b sql.RawBytes) string {
	if w, ok := t.words[string(b)]; ok {
		return w
	}
	w := string(b)
	t.words[w] = w
	return w
}

func (t *followUpTally) day(b sql.RawBytes) (time.Time, error) {
	if d, ok := t.days[string(b)]; ok {
		return d, nil
	}
	d, err := time.Parse(time.DateOnly, string(b))
	if err != nil {
		return time.Time{}, err
	}
	t.days[string(b)] = d
	return d, nil
}

// grow makes s long enough to hold index i.
func grow[T any](s []T, i int64) []T {
	if i < int64(len(s)) {
		return s
	}
	return append(s, make([]T, int(i)+1-len(s))...)
}

// dateOnly is a date's midnight UTC, however the database handed it back.
func dateOnly(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// countIncidentsKept sums the live incidents matching the filter's status, severity and
// postmortem state.
func (s *Store) countIncidentsKept(ctx context.Context, f IncidentFilter) (int64, error) {
	var total int64
	err := s.withCounts(ctx, func(lc *listCounts) {
		for k, n := range lc.byIncident {
			if (f.Status == "" || f.Status == k.status) && (f.Severity == "" || f.Severity == k.severity) &&
				(f.PostmortemState == "" || f.PostmortemState == k.state) {
				total += n
			}
		}
	})
	return total, err
}

// countFollowUpsKept counts the follow-ups the filter matches by status, with those overdue and
// unowned, from the kept totals: every filter but a service and a factor together. factorID and
// serviceID are the ids the filter's factor and service name, 0 for none; -1 for a name that is
// not there, which matches nothing.
func (s *Store) countFollowUpsKept(ctx context.Context, f FollowUpFilter, factorID, serviceID int64) (FollowUpCounts, error) {
	counts := FollowUpCounts{ByStatus: map[string]int64{}}
	if factorID < 0 || serviceID < 0 {
		return counts, nil // a factor or service that is not there matches nothing
	}
	day := today(f.Now)
	err := s.withCounts(ctx, func(lc *listCounts) {
		for k, n := range lc.byFollowUp {
			if k.factorID != factorID || k.serviceID != serviceID || !f.matchesColumns(k, day) {
				continue
			}
			counts.ByStatus[k.status] += n
			active := k.status == "open" || k.status == "in_progress"
			if active && !k.due.IsZero() && k.due.Before(day) {
				counts.Overdue += n
			}
			if active && k.owner == "" {
				counts.Unowned += n
			}
		}
	})
	for status, n := range counts.ByStatus {
		switch {
		case f.Status == "", f.Status == status, f.Status == "active" && (status == "open" || status == "in_progress"):
			counts.Total += n
		}
	}
	return counts, err
}

// matchesColumns is followUpColumns in Go, for the kept totals: the filters on a follow-up's
// owner, kind, priority and due date. TestEveryFollowUpFilterFieldIsCounted holds the two alike.
func (f FollowUpFilter) matchesColumns(k followUpKey, day time.Time) bool {
	if f.Owner != "" && k.owner != f.Owner {
		return false
	}
	if len(f.Mine) > 0 && !slices.Contains(f.Mine, k.owner) {
		return false
	}
	if (f.Kind != "" && k.kind != f.Kind) || (f.Priority != "" && k.priority != f.Priority) {
		return false
	}
	active := k.status == "open" || k.status == "in_progress"
	switch f.Due {
	case "overdue":
		return active && !k.due.IsZero() && k.due.Before(day)
	case "week":
		return active && !k.due.IsZero() && !k.due.Before(day) && !k.due.After(day.AddDate(0, 0, 7))
	case "none":
		return k.due.IsZero()
	}
	return true
}

// ownerNamesKept lists every owner named on a follow-up of a live incident.
func (s *Store) ownerNamesKept(ctx context.Context) ([]string, error) {
	seen := map[string]bool{}
	err := s.withCounts(ctx, func(lc *listCounts) {
		for k := range lc.byFollowUp {
			if k.factorID == 0 && k.serviceID == 0 && k.owner != "" {
				seen[k.owner] = true
			}
		}
	})
	return slices.Sorted(maps.Keys(seen)), err
}

// followUpStatusesByFactor counts each factor's follow-ups of live incidents by status.
func (s *Store) followUpStatusesByFactor(ctx context.Context) (map[int64]map[string]int, error) {
	out := map[int64]map[string]int{}
	err := s.withCounts(ctx, func(lc *listCounts) {
		for k, n := range lc.byFollowUp {
			if k.factorID > 0 && k.serviceID == 0 {
				if out[k.factorID] == nil {
					out[k.factorID] = map[string]int{}
				}
				out[k.factorID][k.status] += int(n)
			}
		}
	})
	return out, err
}
