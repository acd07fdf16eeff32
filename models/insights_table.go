package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"gorm.io/gorm"
)

// insightBlockSize is how many consecutive incident ids share one counter of migration 00017,
// whose triggers divide by the same number.
const insightBlockSize = 1024

// insightBlock is the block of an incident id. Like SQL, Go divides toward zero, so block 0
// holds the ids from -1023 to 1023 and every block is one run of ids.
func insightBlock(id int64) int64 { return id / insightBlockSize }

// blockIDs returns the first and last incident id of a block.
func blockIDs(block int64) (first, last int64) {
	switch {
	case block > 0:
		return block * insightBlockSize, block*insightBlockSize + insightBlockSize - 1
	case block < 0:
		return block*insightBlockSize - insightBlockSize + 1, block * insightBlockSize
	}
	return -insightBlockSize + 1, insightBlockSize - 1
}

// Detection method codes beside the indexes into DetectionMethods.
const (
	methodNone  = uint8(5) // nothing recorded: ""
	methodOther = uint8(6) // a value that is not one of DetectionMethods
)

// The tags the insights filter and group incidents by.
const (
	tagServices = iota
	tagRegions
	tagFactors
	tagKinds
)

// tagTables names each kind of tag's link table and the link's column.
var tagTables = [tagKinds]struct{ link, column string }{
	{"incident_services", "service_id"},
	{"incident_regions", "region_id"},
	{"incident_factors", "factor_id"},
}

// tagName is a service, a region or a contributing factor. Filters name factors by their slug,
// groups by their name; services and regions by their name.
type tagName struct {
	id         int64
	name, slug string
}

// tagLinks holds the tags of each row, compressed: those of row n are ids[start[n]:start[n+1]].
type tagLinks struct {
	start []int32
	ids   []int64
}

func (l *tagLinks) of(n int) []int64 { return l.ids[l.start[n]:l.start[n+1]] }

// insightTable is the store's copy of what the insights read of every incident not deleted, so
// that the first request after a write reads again only the incidents that changed and
// aggregates in memory. A table never changes once built: a refresh builds another, and
// aggregations under way keep the one they started with.
type insightTable struct {
	// mark is the generation of the version feed (versions.go) the table was read at: it holds
	// every change the feed had seen by then, and perhaps some later ones.
	mark  int64
	rows  []insightRow // in id order
	tags  [tagKinds]tagLinks
	names [tagKinds][]tagName
	// sorted holds each figure's sort keys over all the rows, as sortKeys makes them, so that
	// aggregating does not sort: a refresh maps the kept rows' keys to their new rows and merges
	// in those read again. It is nil when the rows are too many to number in a key.
	sorted [][]int64
}

// insightPart is what one read brings back: the incidents of some blocks, or of all, with their
// first public updates and impact time worked out, in id order, and their tags' links.
type insightPart struct {
	rows  []insightRow
	links [tagKinds][]idValue // in incident order, then tag order
}

// with returns a table holding t's rows outside the changed blocks and part's rows, which are all
// inside them, with their tags and sort keys; mark, blocks and names are left for the caller.
// Unchanged blocks are copied whole, a run of rows at a time.
func (t *insightTable) with(changed map[int64]bool, part *insightPart) *insightTable {
	size := len(t.rows) + len(part.rows) // at most
	out := &insightTable{rows: make([]insightRow, 0, size)}
	for k := range tagKinds {
		out.tags[k].start = make([]int32, 1, size+1)
	}
	moved := make([]int32, len(t.rows)) // each old row's new row, or -1 when read again
	fresh := make([]int32, 0, len(part.rows))
	var cursor [tagKinds]int
	addNew := func(r *insightRow) {
		fresh = append(fresh, int32(len(out.rows)))
		out.rows = append(out.rows, *r)
		for k := range tagKinds {
			links, c := part.links[k], cursor[k]
			for c < len(links) && links[c].id < r.id {
				c++
			}
			for ; c < len(links) && links[c].id == r.id; c++ {
				out.tags[k].ids = append(out.tags[k].ids, links[c].value)
			}
			cursor[k] = c
			out.tags[k].start = append(out.tags[k].start, int32(len(out.tags[k].ids)))
		}
	}
	next := 0 // into part.rows
	for from := 0; from < len(t.rows); {
		// A run of rows of one block: [from, to).
		block := insightBlock(t.rows[from].id)
		to := from + 1
		for to < len(t.rows) && insightBlock(t.rows[to].id) == block {
			to++
		}
		if changed[block] {
			for n := from; n < to; n++ {
				moved[n] = -1
			}
			from = to
			continue
		}
		for ; next < len(part.rows) && part.rows[next].id < t.rows[from].id; next++ {
			addNew(&part.rows[next])
		}
		first := int32(len(out.rows))
		out.rows = append(out.rows, t.rows[from:to]...)
		for n := from; n < to; n++ {
			moved[n] = first + int32(n-from)
		}
		for k := range tagKinds {
			old, links := &t.tags[k], &out.tags[k]
			shift := int32(len(links.ids)) - old.start[from]
			links.ids = append(links.ids, old.ids[old.start[from]:old.start[to]]...)
			for n := from + 1; n <= to; n++ {
				links.start = append(links.start, old.start[n]+shift)
			}
		}
		from = to
	}
	for ; next < len(part.rows); next++ {
		addNew(&part.rows[next])
	}
	if len(out.rows) <= MaxInsightIncidents {
		out.sorted = make([][]int64, len(InsightFigures))
		var scratch []int64
		for fig := range InsightFigures {
			if t.sorted == nil && len(t.rows) > 0 {
				// No keys to keep: all are sorted afresh.
				out.sorted[fig] = sortKeys(out.rows, fig, nil)
				continue
			}
			var kept []int64
			if t.sorted != nil {
				kept = t.sorted[fig]
			}
			out.sorted[fig], scratch = mergeKeys(kept, moved, out.rows, fresh, fig, scratch[:0])
		}
	}
	return out
}

// mergeKeys returns a figure's sort keys over a table's rows from the previous table's keys,
// each moved to its row's new place (moved[row], or dropped for -1), and the keys of the rows read
// again (fresh, rows of the new table), sorted here. Moving keeps the keys' order, since kept rows
// keep theirs, so one merge puts every key in place. scratch is space for the fresh keys,
// returned for reuse.
func mergeKeys(kept []int64, moved []int32, rows []insightRow, fresh []int32, fig int, scratch []int64) ([]int64, []int64) {
	const rowMask = 1<<packBits - 1
	for _, n := range fresh {
		if v, state := rows[n].value(fig); state == valid {
			scratch = append(scratch, v<<packBits|int64(n))
		}
	}
	slices.Sort(scratch)
	out := make([]int64, 0, len(kept)+len(scratch))
	k := 0
	for _, key := range kept {
		row := moved[key&rowMask]
		if row < 0 {
			continue
		}
		key = key&^rowMask | int64(row)
		for ; k < len(scratch) && scratch[k] < key; k++ {
			out = append(out, scratch[k])
		}
		out = append(out, key)
	}
	return append(out, scratch[k:]...), scratch
}

// bytes estimates the memory the table holds.
func (t *insightTable) bytes() int {
	const rowSize, idSize, startSize, keySize = 88, 8, 4, 8
	n := len(t.rows) * rowSize
	for _, keys := range t.sorted {
		n += len(keys) * keySize
	}
	for k := range tagKinds {
		n += len(t.tags[k].ids)*idSize + len(t.tags[k].start)*startSize
		for _, name := range t.names[k] {
			n += 40 + len(name.name) + len(name.slug)
		}
	}
	return n
}

// choose returns the rows a filter chooses, in id order, their groups and, when the table keeps
// them, each figure's sort keys over the rows chosen; ok is false when the filter names a severity
// or a detection method outside the known values, or milestone sources, which the table does not
// keep (the caller computes from SQL instead). The rows and keys may be the table's own: they must not be changed.
func (t *insightTable) choose(f InsightsFilter, dialect string) (rows []insightRow, g groups, sorted [][]int64, ok bool) {
	rows, g, sorted, _, ok = t.chooseCounting(f, dialect)
	return rows, g, sorted, ok
}

// chooseCounting is choose that also counts the near misses the filter leaves out of the figures.
func (t *insightTable) chooseCounting(f InsightsFilter, dialect string) (rows []insightRow, g groups, sorted [][]int64, nearMisses int, ok bool) {
	if f.Sources != "" {
		// The table keeps no milestone sources: the sources filter is answered from SQL.
		return nil, groups{}, nil, 0, false
	}
	var tests []func(n int) bool
	if f.From != nil || f.To != nil {
		// The database compares its own start with the bound: Unix seconds on SQLite, microseconds
		// (the driver drops the nanoseconds) on PostgreSQL.
		bound := func(tm *time.Time, unbounded instant) instant {
			switch {
			case tm == nil:
				return unbounded
			case dialect == "postgres":
				return instant(tm.UnixMicro())
			}
			return instant(tm.Unix())
		}
		from, to := bound(f.From, unknown), bound(f.To, math.MaxInt64)
		tests = append(tests, func(n int) bool {
			start := t.rows[n].startKey
			// Without a start an incident falls outside any bounded period, as in SQL.
			return start != unknown && start >= from && (f.To == nil || start < to)
		})
	}
	if f.Severity != "" {
		code := slices.Index(Severities, f.Severity)
		if code < 0 {
			return nil, groups{}, nil, 0, false
		}
		tests = append(tests, func(n int) bool { return int(t.rows[n].severity) == code })
	}
	if f.DetectionMethod != "" {
		code := methodNone
		if f.DetectionMethod != DetectionUnknown {
			known := slices.Index(DetectionMethods, f.DetectionMethod)
			if known < 0 {
				return nil, groups{}, nil, 0, false
			}
			code = uint8(known)
		}
		tests = append(tests, func(n int) bool { return t.rows[n].methodCode == code })
	}
	for kind, name := range [tagKinds]string{f.Service, f.Region, f.Factor} {
		if name == "" {
			continue
		}
		var ids []int64
		for _, tag := range t.names[kind] {
			if kind == tagFactors && tag.slug == name || kind != tagFactors && tag.name == name {
				ids = append(ids, tag.id)
			}
		}
		links := &t.tags[kind]
		tests = append(tests, func(n int) bool {
			for _, id := range links.of(n) {
				if slices.Contains(ids, id) {
					return true
				}
			}
			return false
		})
	}
	// Near misses are tested last, after the tests they are counted under.
	others := len(tests)
	if f.NearMisses == NearMissesOnly || t.anyNearMiss() {
		switch f.NearMisses {
		case NearMissesInclude:
		case NearMissesOnly:
			tests = append(tests, func(n int) bool { return t.rows[n].nearMiss })
		default:
			tests = append(tests, func(n int) bool { return !t.rows[n].nearMiss })
		}
	}
	if len(tests) == 0 {
		return t.rows, t.groupsOf(t.rows, nil, f.GroupBy), t.sorted, 0, true
	}
	var chosen []int
	for n := range t.rows {
		if !all(tests[:others], n) {
			continue
		}
		if all(tests[others:], n) {
			chosen = append(chosen, n)
			rows = append(rows, t.rows[n])
		} else if f.NearMisses == "" {
			nearMisses++
		}
	}
	if t.sorted != nil {
		// Each chosen row's keys, renumbered, stay in order: the chosen rows keep theirs.
		const rowMask = 1<<packBits - 1
		position := make([]int32, len(t.rows))
		for n := range position {
			position[n] = -1
		}
		for n, row := range chosen {
			position[row] = int32(n)
		}
		sorted = make([][]int64, len(t.sorted))
		for fig, keys := range t.sorted {
			for _, key := range keys {
				if n := position[key&rowMask]; n >= 0 {
					sorted[fig] = append(sorted[fig], key&^rowMask|int64(n))
				}
			}
		}
	}
	return rows, t.groupsOf(rows, chosen, f.GroupBy), sorted, nearMisses, true
}

// anyNearMiss tells whether the table holds a near miss: without one, leaving them out chooses
// every row, and the rows and sort keys are the table's own.
func (t *insightTable) anyNearMiss() bool {
	for n := range t.rows {
		if t.rows[n].nearMiss {
			return true
		}
	}
	return false
}

func all(tests []func(int) bool, n int) bool {
	for _, test := range tests {
		if !test(n) {
			return false
		}
	}
	return true
}

// groupsOf assigns the chosen rows their groups, as Store.groupsOf does from SQL; chosen[n] is
// the table's row that rows[n] copies, or nil when rows are the table's.
func (t *insightTable) groupsOf(rows []insightRow, chosen []int, groupBy string) groups {
	kind := tagServices
	switch groupBy {
	case "region":
		kind = tagRegions
	case "factor":
		kind = tagFactors
	case "service":
	default:
		return singleGroups(rows, groupBy)
	}
	g, position, none := startTagGroups(slices.Clone(t.names[kind]), len(rows))
	links := &t.tags[kind]
	for n := range rows {
		row := n
		if chosen != nil {
			row = chosen[n]
		}
		first := len(g.ids)
		for _, id := range links.of(row) {
			g.ids = append(g.ids, position[id])
		}
		if len(g.ids) == first {
			g.ids = append(g.ids, none)
		}
		g.start[n+1] = int32(len(g.ids))
	}
	return g
}

// insightRows keeps the store's insightTable and refreshes it, one refresh at a time.
type insightRows struct {
	mu     sync.Mutex
	table  *insightTable
	flight *tableFlight
	// How often the table was read whole and in part, and how many blocks the reads in part
	// read again, for tests.
	fullReads, partReads, blocksRead int64
}

type tableFlight struct {
	done  chan struct{}
	table *insightTable
	err   error
	// leaderGone says the refresh failed because the request running it went away.
	leaderGone bool
}

// insightTableAt returns the store's copy of the insight rows, read at the insights change
// counter mark or later. When the copy is older it is refreshed; concurrent callers share one
// refresh.
func (s *Store) insightTableAt(ctx context.Context, mark int64) (*insightTable, error) {
	m := &s.insightRows
	for {
		m.mu.Lock()
		if t := m.table; t != nil && t.mark >= mark {
			m.mu.Unlock()
			return t, nil
		}
		if fl := m.flight; fl != nil {
			m.mu.Unlock()
			select {
			case <-fl.done:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			// A failure is this request's too, unless only the request that ran the refresh went
			// away; a refresh that succeeded but began before mark was read is not enough. Either
			// way the loop looks again.
			if fl.err != nil && !fl.leaderGone {
				return nil, fl.err
			}
			continue
		}
		fl := &tableFlight{done: make(chan struct{})}
		m.flight = fl
		old := m.table
		m.mu.Unlock()
		return s.refreshTable(ctx, old, fl)
	}
}

// refreshTable builds a newer table from old (nil: none yet) and answers the callers waiting on fl.
func (s *Store) refreshTable(ctx context.Context, old *insightTable, fl *tableFlight) (t *insightTable, err error) {
	m := &s.insightRows
	err = errors.New("insight table refresh did not finish") // should it panic
	defer func() {
		m.mu.Lock()
		if err == nil && (m.table == nil || t.mark >= m.table.mark) {
			m.table = t
		}
		m.flight = nil
		fl.table, fl.err, fl.leaderGone = t, err, err != nil && ctx.Err() != nil
		m.mu.Unlock()
		close(fl.done)
	}()
	if old != nil {
		t, err = s.readChangedBlocks(ctx, old)
		if err != nil || t != nil {
			return t, err
		}
	}
	return s.readWholeTable(ctx)
}

// readChangedBlocks reads again the blocks of the incidents whose insight rows changed since old
// was read, as the version feed has seen them, in one read transaction, so that the table it
// returns is the database at one instant. It returns nil, and no error, when everything must be
// read again or so many blocks changed that reading everything costs less.
func (s *Store) readChangedBlocks(ctx context.Context, old *insightTable) (*insightTable, error) {
	now, ids, all := s.insightsChangedSince(generation(old.mark))
	if all {
		return nil, nil
	}
	changed := map[int64]bool{}
	for _, id := range ids {
		changed[insightBlock(id)] = true
	}
	// A block read again costs about twice what it costs in a whole read, which runs its
	// statements on several connections at once.
	if len(changed) > max(4, (len(old.rows)/insightBlockSize+1)/4) {
		return nil, nil
	}
	opts := &sql.TxOptions{ReadOnly: true}
	if s.dialect == "postgres" {
		opts.Isolation = sql.LevelRepeatableRead
	}
	var out *insightTable
	err := s.read.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		names, err := readTagNames(ctx, tx)
		if err != nil {
			return err
		}
		if len(changed) == 0 {
			// Nothing the rows hold changed (a title, a name, a private note): they are shared.
			out = &insightTable{rows: old.rows, tags: old.tags, sorted: old.sorted}
		} else {
			part, err := s.readInsightPart(ctx, tx, slices.Sorted(maps.Keys(changed)), false)
			if err != nil {
				return err
			}
			out = old.with(changed, part)
		}
		out.mark, out.names = int64(now), names
		return nil
	}, opts)
	if err != nil {
		return nil, fmt.Errorf("refresh insight rows: %w", err)
	}
	m := &s.insightRows
	m.mu.Lock()
	m.partReads++
	m.blocksRead += int64(len(changed))
	m.mu.Unlock()
	return out, nil
}

// readWholeTable reads every incident's insight row. The feed's generation is taken first, the
// rows after, on several connections at once: the rows are then at least as new as the
// generation, and an incident changed in between is read again by the next refresh.
func (s *Store) readWholeTable(ctx context.Context) (*insightTable, error) {
	mark, err := s.insightsMark(ctx)
	if err != nil {
		return nil, err
	}
	var (
		names [tagKinds][]tagName
		part  *insightPart
		wg    sync.WaitGroup
		errs  [2]error
	)
	wg.Add(2)
	go func() {
		defer wg.Done()
		errs[0] = Safely(func() (err error) {
			names, err = readTagNames(ctx, s.scan)
			return err
		})
	}()
	go func() {
		defer wg.Done()
		errs[1] = Safely(func() (err error) {
			part, err = s.readInsightPart(ctx, s.scan, nil, true)
			return err
		})
	}()
	wg.Wait()
	if err := errors.Join(errs[:]...); err != nil {
		return nil, fmt.Errorf("read insight rows: %w", err)
	}
	t := (&insightTable{}).with(nil, part)
	t.mark, t.names = mark, names
	m := &s.insightRows
	m.mu.Lock()
	m.fullReads++
	m.mu.Unlock()
	return t, nil
}

// readTagNames reads every service, region and factor, in one statement.
func readTagNames(ctx context.Context, db *gorm.DB) ([tagKinds][]tagName, error) {
	var out [tagKinds][]tagName
	rows, err := db.WithContext(ctx).Raw(`SELECT 0, id, name, '' FROM services UNION ALL SELECT 1, id, name, '' FROM regions
		UNION ALL SELECT 2, id, name, slug FROM factors`).Rows()
	if err != nil {
		return out, fmt.Errorf("read tag names: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var kind int
		var tag tagName
		if err := rows.Scan(&kind, &tag.id, &tag.name, &tag.slug); err != nil {
			return out, fmt.Errorf("read tag names: %w", err)
		}
		if kind >= 0 && kind < tagKinds {
			out[kind] = append(out[kind], tag)
		}
	}
	if err := rows.Err(); err != nil {
		return out, fmt.Errorf("read tag names: %w", err)
	}
	return out, nil
}

// idRanges returns the ids of the given blocks, in ascending order, as ranges of ids, first and
// last, adjacent blocks joined; never nil, which means every incident below.
func idRanges(blocks []int64) [][2]int64 {
	out := [][2]int64{}
	for n := 0; n < len(blocks); {
		first, last := blockIDs(blocks[n])
		for n++; n < len(blocks) && blocks[n] == blocks[n-1]+1; n++ {
			_, last = blockIDs(blocks[n])
		}
		out = append(out, [2]int64{first, last})
	}
	return out
}

// rangeCond is an SQL condition choosing the rows whose column falls in one of the ranges; with
// no ranges at all (nil) it chooses every row.
func rangeCond(column string, ranges [][2]int64) (string, []any) {
	switch {
	case ranges == nil:
		return "TRUE", nil
	case len(ranges) == 0:
		return "FALSE", nil
	}
	conds := make([]string, len(ranges))
	var args []any
	for n, r := range ranges {
		conds[n], args = column+" BETWEEN ? AND ?", append(args, r[0], r[1])
	}
	return "(" + strings.Join(conds, " OR ") + ")", args
}

// firstUpdatesByRange reads the first public updates of the ranges one range after another in
// one statement (see firstUpdatesQuery); with no ranges at all, of every incident.
func firstUpdatesByRange(ranges [][2]int64) ([]string, []any) {
	switch {
	case ranges == nil:
		return []string{""}, nil
	case len(ranges) == 0:
		return []string{" AND FALSE"}, nil
	}
	filters := make([]string, len(ranges))
	var args []any
	for n, r := range ranges {
		filters[n], args = " AND incident_id BETWEEN ? AND ?", append(args, r[0], r[1])
	}
	return filters, args
}

// readInsightPart reads the insight rows of the incidents in blocks (every incident when blocks
// is nil) through db, with their first public updates, impact windows and tags. In parallel, each
// statement runs on a connection of its own.
func (s *Store) readInsightPart(ctx context.Context, db *gorm.DB, blocks []int64, parallel bool) (*insightPart, error) {
	const halves = 2
	var (
		rows    [halves][]insightRow
		firsts  []idValue
		windows []idWindow
		links   [tagKinds][]idValue
	)
	var ranges [][2]int64
	if blocks != nil {
		ranges = idRanges(blocks)
	}
	incidents, incidentArgs := rangeCond("i.id", ranges)
	children, childArgs := rangeCond("incident_id", ranges)
	firstFilters, firstArgs := firstUpdatesByRange(ranges)
	reads := []func() error{
		func() (err error) {
			firsts, err = s.readFirstUpdatesOf(ctx, db, firstArgs, firstFilters...)
			return err
		},
		func() (err error) {
			windows, err = s.readWindowsOf(ctx, db, " AND "+children, childArgs)
			return err
		},
	}
	parts := 1
	if parallel {
		parts = halves
	}
	for half := range parts {
		reads = append(reads, func() (err error) {
			rows[half], err = s.readTableRows(ctx, db, incidents, incidentArgs, blocks == nil, half, parts)
			return err
		})
	}
	for kind := range tagKinds {
		reads = append(reads, func() error {
			cols, err := readIntColumnsOf(ctx, db, s.dialect, tagTables[kind].link, linksQuery(kind, children), childArgs)
			if err != nil {
				return err
			}
			list := make([]idValue, len(cols[0]))
			for n := range list {
				list[n] = idValue{cols[0][n], cols[1][n]}
			}
			slices.SortFunc(list, func(a, b idValue) int {
				if c := cmpInt64(a.id, b.id); c != 0 {
					return c
				}
				return cmpInt64(a.value, b.value)
			})
			links[kind] = list
			return nil
		})
	}
	errs := make([]error, len(reads))
	if parallel {
		var wg sync.WaitGroup
		for n, read := range reads {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[n] = Safely(read)
			}()
		}
		wg.Wait()
	} else {
		for n, read := range reads {
			if errs[n] = read(); errs[n] != nil {
				break
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	part := &insightPart{rows: sortByID(slices.Concat(rows[:]...)), links: links}
	joinFirstUpdates(part.rows, firsts)
	joinWindows(part.rows, windows)
	return part, nil
}

// readTableRows reads the insight rows of the incidents the condition chooses, as
// readInsightRows does, with what the table filters by beside them. A whole read goes through
// the covering index of migration 00002 on SQLite; a read of some blocks by id.
func (s *Store) readTableRows(ctx context.Context, db *gorm.DB, cond string, args []any, whole bool, part, parts int) ([]insightRow, error) {
	cols, err := readIntColumnsOf(ctx, db, s.dialect, "insight rows", s.tableRowsQuery(cond, whole, part, parts), args)
	if err != nil {
		return nil, err
	}
	rows := make([]insightRow, len(cols[0]))
	for n := range rows {
		code := uint8(cols[1][n] & 7)
		rows[n] = insightRow{
			id: cols[0][n], severity: uint8(cols[1][n] >> 3), method: min(code, uint8(len(DetectionMethods))), methodCode: code,
			started: instant(cols[2][n]), detected: instant(cols[3][n]), acknowledged: instant(cols[4][n]),
			mitigated: instant(cols[5][n]), resolved: instant(cols[6][n]), firstUpdate: unknown,
			startKey: instant(cols[2][n]),
		}
		if len(cols) > 7 {
			rows[n].startKey = instant(cols[7][n])
		}
	}
	// Near misses are few, and their flag is outside the covering index: read their ids apart,
	// through the partial index of migration 00033.
	q := "SELECT i.id FROM incidents i WHERE i.near_miss AND i.deleted_at IS NULL AND " + cond
	if parts > 1 {
		q += fmt.Sprintf(" AND i.id %% %d = %d", parts, part)
	}
	var near []int64
	if err := db.WithContext(ctx).Raw(q, args...).Scan(&near).Error; err != nil {
		return nil, fmt.Errorf("read near misses: %w", err)
	}
	if len(near) > 0 {
		set := make(map[int64]bool, len(near))
		for _, id := range near {
			set[id] = true
		}
		for n := range rows {
			rows[n].nearMiss = set[rows[n].id]
		}
	}
	daysCond := cond
	if parts > 1 {
		daysCond += fmt.Sprintf(" AND i.id %% %d = %d", parts, part)
	}
	if err := readMilestoneDays(ctx, db, rows, daysCond, args); err != nil {
		return nil, err
	}
	return rows, nil
}

func (s *Store) tableRowsQuery(cond string, whole bool, part, parts int) columnsQuery {
	codes := "(" + codeCase("i.severity", Severities) + ") * 8 + " + codeCase("i.detection_method", append(slices.Clone(DetectionMethods), ""))
	exprs := []string{"i.id", codes, s.epoch("i.started_at"), s.epoch("i.detected_at"), s.epoch("i.acknowledged_at"),
		s.epoch("i.mitigated_at"), s.epoch("i.resolved_at")}
	if s.dialect == "postgres" {
		exprs = append(exprs, "CAST(EXTRACT(EPOCH FROM i.started_at) * 1000000 AS BIGINT)")
	}
	from := "incidents i"
	if whole {
		from += s.indexedBy("incidents_insights_idx")
	}
	from += " WHERE i.deleted_at IS NULL AND " + cond
	if parts > 1 {
		from += fmt.Sprintf(" AND i.id %% %d = %d", parts, part)
	}
	return columnsQuery{exprs: exprs, from: from}
}

// linksQuery reads the links of the incidents the condition over incident_id chooses to one
// kind of tag.
func linksQuery(kind int, cond string) columnsQuery {
	tt := tagTables[kind]
	return columnsQuery{exprs: []string{"incident_id", tt.column}, from: tt.link + " WHERE " + cond}
}

// insightPartQueries are the statements a read of some blocks runs, by name, for their plans.
func (s *Store) insightPartQueries(blocks []int64) map[string]struct {
	q    columnsQuery
	args []any
} {
	ranges := idRanges(blocks)
	incidents, incidentArgs := rangeCond("i.id", ranges)
	children, childArgs := rangeCond("incident_id", ranges)
	firstFilters, firstArgs := firstUpdatesByRange(ranges)
	out := map[string]struct {
		q    columnsQuery
		args []any
	}{
		"incidents":            {s.tableRowsQuery(incidents, false, 0, 1), incidentArgs},
		"first public updates": {s.firstUpdatesQuery(firstFilters...), firstArgs},
		"impact windows":       {s.windowsQuery(" AND " + children), childArgs},
	}
	for kind := range tagKinds {
		out[tagTables[kind].link] = struct {
			q    columnsQuery
			args []any
		}{linksQuery(kind, children), childArgs}
	}
	return out
}

// insightsFromTable aggregates the insights a filter chooses from the store's copy of the rows,
// read at mark or later, and returns the mark the copy was read at. Filters the copy cannot
// answer exactly are computed from SQL, at mark.
func (s *Store) insightsFromTable(ctx context.Context, f InsightsFilter, mark int64) (*Insights, int64, error) {
	f = f.normalized()
	t, err := s.insightTableAt(ctx, mark)
	if err != nil {
		return nil, 0, err
	}
	rows, g, sorted, nearMisses, ok := t.chooseCounting(f, s.dialect)
	if !ok {
		out, err := s.ComputeInsights(ctx, f)
		return out, mark, err
	}
	if len(rows) > MaxInsightIncidents {
		return nil, 0, fmt.Errorf("insights over %d incidents: more than %d at once: %w", len(rows), MaxInsightIncidents, ErrTooMany)
	}
	out := aggregate(rows, f, g, sorted)
	out.NearMisses = nearMisses
	if err := s.nameIncidents(ctx, out); err != nil {
		return nil, 0, err
	}
	return out, t.mark, nil
}
