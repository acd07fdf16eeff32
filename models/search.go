package models

import (
	"context"
	"database/sql"
	"fmt"
	"html"
	"sort"
	"strings"
	"time"
	"unicode"

	"gorm.io/gorm"
)

// Snippet markers: the database wraps matches in these, then they become <mark> after the text
// around them has been escaped, so a snippet is safe HTML whatever the record holds.
const (
	markOpen  = "\x02"
	markClose = "\x03"
)

// SearchHit is one match of a full-text search.
type SearchHit struct {
	Kind          string // incident, timeline_event, follow_up
	IncidentID    int64
	ID            int64
	Title         string // the incident's or follow-up's title
	SnippetHTML   string // escaped text with <mark> around the matches
	Rank          float64
	IncidentTitle string
}

// searchTerms keeps the words of a query and drops everything else, so quotes, *, NEAR,
// parentheses and other search syntax can never make the query fail.
func searchTerms(q string, max int) []string {
	var terms []string
	seen := map[string]bool{}
	for _, word := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if seen[word] || len(terms) >= max {
			continue
		}
		seen[word] = true
		terms = append(terms, word)
	}
	return terms
}

// ftsQuery writes terms as an FTS5 expression: each a quoted string, joined by AND or OR.
func ftsQuery(terms []string, op string) string {
	quoted := make([]string, len(terms))
	for n, t := range terms {
		quoted[n] = `"` + t + `"`
	}
	return strings.Join(quoted, " "+op+" ")
}

// tsQuery writes terms as a PostgreSQL tsquery joined by & or |; terms are letters and digits only.
func tsQuery(terms []string, op string) string { return strings.Join(terms, " "+op+" ") }

func safeSnippet(s string) string {
	s = html.EscapeString(s)
	return strings.NewReplacer(markOpen, "<mark>", markClose, "</mark>").Replace(s)
}

// searchWindow is how many of the newest live matches of each kind a search ranks. Ranking
// costs something for every row it ranks whatever the LIMIT (bm25 reads each row's length from
// the FTS5 docsize table; ts_rank reads each row's tsvector): a word found in 60,000 of 300,000
// follow-ups took 80 ms to rank on SQLite, the newest 1,000 of them take a few. A query matching
// fewer rows is ranked exactly as before; one matching more shows the best of its most recent
// 1,000 matches of each kind, which for a word that common is what people are after.
const searchWindow = 1000

// sqliteSearchQuery ranks by bm25 the newest @window matches of @query in one FTS5 table whose
// incident is live, keeps the best @limit, and only then highlights them.
//
// bound, the window's lower rowid, walks the matches newest first, which FTS5 does from its
// index without ranking; ranked hands FTS5 that bound as a rowid range, so bm25 runs inside the
// window only. Deleted incidents are left out by their ids, read from the index of deleted
// incidents, without a visit to incidents. snippet() needs FTS5's cursor on its row, and SQLite
// computes it for every row entering the top-@limit sort, which with equal ranks is every row of
// the window; so the final pass walks only the rowid range the best span, computing snippet()
// for the rows kept. Its unary + stops SQLite from running the match again for each kept rowid.
// Every pass over a common word's matches costs milliseconds even when its range holds none, so
// bound and span come first in a CROSS JOIN, and a pass with nothing to find never starts.
//
// rank is the bm25 call, lower for better matches, so the rank returned is its negation, higher
// better as on PostgreSQL; record is the table the FTS5 rows copy, joined to reach the incident,
// "" for incidents themselves; columns read the record as r (for incidents, i) and its incident
// as i.
func sqliteSearchQuery(fts, rank, record, columns string) string {
	const deleted = `(SELECT id FROM incidents WHERE deleted_at IS NOT NULL)`
	join, live := ``, fts+`.rowid NOT IN `+deleted
	windowJoin, windowLive := ``, `w.rowid NOT IN `+deleted
	records := `CROSS JOIN incidents i ON i.id = ranked.id`
	if record != "" {
		join, live = `JOIN `+record+` l ON l.id = `+fts+`.rowid`, `l.incident_id NOT IN `+deleted
		windowJoin, windowLive = `JOIN `+record+` wl ON wl.id = w.rowid`, `wl.incident_id NOT IN `+deleted
		records = `CROSS JOIN ` + record + ` r ON r.id = ranked.id CROSS JOIN incidents i ON i.id = r.incident_id`
	}
	return `WITH bound AS MATERIALIZED (
			SELECT min(r) AS id FROM (SELECT w.rowid AS r FROM ` + fts + ` w ` + windowJoin + `
			WHERE w.` + fts + ` MATCH @query AND ` + windowLive + ` ORDER BY w.rowid DESC LIMIT @window)
		), ranked AS MATERIALIZED (
			SELECT ` + fts + `.rowid AS id, ` + rank + ` AS score FROM bound CROSS JOIN ` + fts + ` ` + join + `
			WHERE bound.id IS NOT NULL AND ` + fts + ` MATCH @query AND ` + fts + `.rowid >= bound.id AND ` + live + `
			ORDER BY score, ` + fts + `.rowid DESC LIMIT @limit
		), span AS (
			SELECT min(id) AS first, max(id) AS last FROM ranked
		)
		SELECT ` + columns + `, snippet(` + fts + `, -1, @open, @close, '…', 16) AS snippet_html, -ranked.score AS rank
		FROM span CROSS JOIN ` + fts + ` CROSS JOIN ranked ON ranked.id = +` + fts + `.rowid ` + records + `
		WHERE span.first IS NOT NULL AND ` + fts + ` MATCH @query AND ` + fts + `.rowid BETWEEN span.first AND span.last
		ORDER BY ranked.score, ranked.id DESC`
}

// postgresWindow defines matched: the ids and documents of the newest @window matches of
// @query in fts (migration 00015) that pass cond, reading fts as x joined by join.
//
// A GIN index finds matches in no order, so taking the newest from it means visiting every match,
// 60,000 rows for a common word; walking the primary key backwards finds the newest cheaply when
// matches are common but reads the whole table when they are rare, and the planner cannot tell
// which, least of all in a prepared statement. So recent walks the newest @scan documents in key
// order, a subquery with a LIMIT the planner cannot turn into a GIN scan, and stops at @window
// matches; only when fewer match there does the GIN index find the matches among all documents,
// which are then few: at most one in @scan/@window, unless old documents match far more often
// than new ones. That fallback sorts on x.id + 0, an expression, which keeps the planner off the
// primary key. The tsquery is a subquery so that a generic plan parses it once, not per row.
func postgresWindow(fts, join, cond string) string {
	return `recent AS (
			SELECT x.id, x.document FROM (SELECT * FROM ` + fts + ` ORDER BY id DESC LIMIT @scan) x ` + join + `
			WHERE x.document @@ (SELECT to_tsquery('english', @query)) AND ` + cond + `
			ORDER BY x.id DESC LIMIT @window
		), matched AS (
			SELECT id, document FROM recent WHERE (SELECT count(*) FROM recent) >= @window
			UNION ALL
			(SELECT x.id, x.document FROM ` + fts + ` x ` + join + `
			WHERE x.document @@ (SELECT to_tsquery('english', @query)) AND ` + cond + ` AND (SELECT count(*) FROM recent) < @window
			ORDER BY x.id + 0 DESC LIMIT @window)
		)`
}

// postgresSearchQuery ranks by ts_rank the newest @window matches of one table whose incident
// is live, then highlights the best @limit. The documents are ranked from their stored tsvector
// without reading the records; ts_headline, which parses the text again, runs on the best only.
// incidentColumn names the incident in table_fts and in table; columns and headline read the
// record as r and its incident as i.
func postgresSearchQuery(table, incidentColumn, columns, headline string) string {
	return `WITH ` + postgresWindow(table+"_fts", "",
		`NOT EXISTS (SELECT 1 FROM incidents d WHERE d.id = x.`+incidentColumn+` AND d.deleted_at IS NOT NULL)`) + `, ranked AS (
			SELECT m.id, ts_rank(m.document, (SELECT to_tsquery('english', @query))) AS rank FROM matched m
			ORDER BY rank DESC, m.id DESC LIMIT @limit
		)
		SELECT ` + columns + `, ts_headline('english', ` + headline + `, (SELECT to_tsquery('english', @query)), @headline) AS snippet_html, ranked.rank
		FROM ranked JOIN ` + table + ` r ON r.id = ranked.id JOIN incidents i ON i.id = r.` + incidentColumn + `
		ORDER BY ranked.rank DESC, r.id DESC`
}

// postgresScan is how many windows of the newest documents PostgreSQL reads in key order
// before it asks the GIN index (postgresWindow).
const postgresScan = 20

// Search finds incidents, timeline entries and follow-ups matching every word of q, best first:
// up to limit of each kind, the best of the searchWindow most recent matches of that kind.
func (s *Store) Search(ctx context.Context, q string, limit int) ([]SearchHit, error) {
	return s.search(ctx, q, limit, searchWindow)
}

func (s *Store) search(ctx context.Context, q string, limit, window int) ([]SearchHit, error) {
	terms := searchTerms(q, 12)
	if len(terms) == 0 {
		return nil, nil
	}
	db := s.read.WithContext(ctx)
	queries, args := s.searchQueries(terms, limit, window)
	var hits []SearchHit
	for _, query := range queries {
		var part []SearchHit
		if err := db.Raw(query, args...).Scan(&part).Error; err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		hits = append(hits, part...)
	}
	for n := range hits {
		hits[n].SnippetHTML = safeSnippet(hits[n].SnippetHTML)
	}
	// Ranks of different tables are not on one scale; incidents first, then by rank within kind.
	order := map[string]int{"incident": 0, "follow_up": 1, "timeline_event": 2}
	sort.SliceStable(hits, func(a, b int) bool {
		if order[hits[a].Kind] != order[hits[b].Kind] {
			return order[hits[a].Kind] < order[hits[b].Kind]
		}
		return hits[a].Rank > hits[b].Rank
	})
	return hits, nil
}

// searchQueries are the statements of a search for terms, one per kind, and their arguments.
func (s *Store) searchQueries(terms []string, limit, window int) ([]string, []any) {
	if s.dialect == "postgres" {
		queries := []string{
			postgresSearchQuery("incidents", "id",
				`'incident' AS kind, i.id AS incident_id, i.id AS id, i.title AS title, i.title AS incident_title`,
				`i.summary || ' ' || i.root_cause || ' ' || i.customer_impact`),
			postgresSearchQuery("timeline_events", "incident_id",
				`'timeline_event' AS kind, r.incident_id, r.id, i.title AS title, i.title AS incident_title`, `r.body`),
			postgresSearchQuery("follow_ups", "incident_id",
				`'follow_up' AS kind, r.incident_id, r.id, r.title AS title, i.title AS incident_title`,
				`r.title || ' ' || r.description || ' ' || r.verification`),
		}
		headline := "StartSel=" + markOpen + ", StopSel=" + markClose + ", MaxWords=24, MinWords=10"
		return queries, []any{sql.Named("query", tsQuery(terms, "&")), sql.Named("window", window),
			sql.Named("scan", postgresScan*window), sql.Named("limit", limit), sql.Named("headline", headline)}
	}
	queries := []string{
		sqliteSearchQuery("incidents_fts", "bm25(incidents_fts, 5.0, 2.0, 1.0)", "",
			`'incident' AS kind, i.id AS incident_id, i.id AS id, i.title AS title, i.title AS incident_title`),
		sqliteSearchQuery("timeline_events_fts", "bm25(timeline_events_fts)", "timeline_events",
			`'timeline_event' AS kind, r.incident_id, r.id, i.title AS title, i.title AS incident_title`),
		sqliteSearchQuery("follow_ups_fts", "bm25(follow_ups_fts, 3.0, 1.0, 1.0)", "follow_ups",
			`'follow_up' AS kind, r.incident_id, r.id, r.title AS title, i.title AS incident_title`),
	}
	return queries, []any{sql.Named("query", ftsQuery(terms, "AND")), sql.Named("window", window),
		sql.Named("limit", limit), sql.Named("open", markOpen), sql.Named("close", markClose)}
}

// textFilter narrows a query of incidents to those /search finds for the words of text: an
// incident whose own document, or one of whose timeline entries or follow-ups, holds every word.
// The incident list's text filter is this, so the list and /search agree on the same words.
// Text with no words (only punctuation) matches nothing, as it finds nothing on /search.
func (s *Store) textFilter(q *gorm.DB, text string) *gorm.DB {
	terms := searchTerms(text, 12)
	if len(terms) == 0 {
		return q.Where("1 = 0")
	}
	if s.dialect == "postgres" {
		query := tsQuery(terms, "&")
		return q.Where(`incidents.id IN (SELECT id FROM incidents_fts WHERE document @@ to_tsquery('english', ?)
			UNION ALL SELECT incident_id FROM timeline_events_fts WHERE document @@ to_tsquery('english', ?)
			UNION ALL SELECT incident_id FROM follow_ups_fts WHERE document @@ to_tsquery('english', ?))`, query, query, query)
	}
	query := ftsQuery(terms, "AND")
	return q.Where(`incidents.id IN (SELECT rowid FROM incidents_fts WHERE incidents_fts MATCH ?
		UNION ALL SELECT incident_id FROM timeline_events WHERE id IN (SELECT rowid FROM timeline_events_fts WHERE timeline_events_fts MATCH ?)
		UNION ALL SELECT incident_id FROM follow_ups WHERE id IN (SELECT rowid FROM follow_ups_fts WHERE follow_ups_fts MATCH ?))`, query, query, query)
}

// SimilarQuery describes the incident to compare with: a stored one or a draft being filed.
type SimilarQuery struct {
	ExcludeID int64
	Before    *time.Time // only incidents that started before this, when known
	Text      string     // title and summary: the words that say what happened
	Services  []string
	Factors   []string // slugs
}

// Similar is an earlier incident that looks like this one, and why.
type Similar struct {
	ID        int64
	Title     string
	StartedAt *time.Time
	Score     float64
	Shares    []string // names of shared factors, then services
	TextMatch bool

	sharedFactors, sharedServices []int64 // ids of what is shared, as kept
}

// stopWords are too common in postmortems to say anything about similarity.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and are as at be been but by for from had has have in into is it its
		of on or our that the their then there these this to was were which while will with we us not no all
		customers customer incident issue service services our teams team some were more than after before
		during between about approximately`) {
		stopWords[w] = true
	}
}

// similarWindow is how many of the most recent earlier incidents sharing a word with the query
// are ranked by text. The words of a title and summary are common ones: at 100,000 incidents a
// draft's words were found in a third of them, and ranking them all took 70 ms.
const similarWindow = 1000

// SimilarIncidents ranks up to limit earlier incidents by shared words (FTS5 bm25 on SQLite,
// ts_rank on PostgreSQL), shared factors and shared services, and says what they share. The
// candidates are the best 40 by text among the similarWindow most recent earlier incidents
// sharing a word, and the 40 most recent earlier incidents sharing a factor, and a service.
func (s *Store) SimilarIncidents(ctx context.Context, q SimilarQuery, limit int) ([]Similar, error) {
	return s.similarIncidents(ctx, q, limit, similarWindow)
}

func (s *Store) similarIncidents(ctx context.Context, q SimilarQuery, limit, window int) ([]Similar, error) {
	db := s.read.WithContext(ctx)
	var terms []string
	for _, t := range searchTerms(q.Text, 200) {
		if !stopWords[t] && len(t) > 2 && len(terms) < 12 {
			terms = append(terms, t)
		}
	}
	textScore := map[int64]float64{}
	if s.dialect != "postgres" && len(terms) > 1 {
		rare, err := s.rarerTerms(db, terms)
		if err != nil {
			return nil, err
		}
		if len(rare) > 0 {
			terms = rare
		} else {
			// Every word is common: rank the first few among fewer of the newest incidents.
			terms, window = terms[:min(len(terms), similarRareTerms)], max(window/5, 40)
		}
	}
	if len(terms) > 0 {
		var rows []struct {
			ID   int64
			Rank float64
		}
		if err := s.similarByText(db, q, terms, window).Scan(&rows).Error; err != nil {
			return nil, fmt.Errorf("similar incidents by text: %w", err)
		}
		// Normalise to 0..1 against the best match, so text weighs like one or two shared tags.
		best := 0.0
		for _, r := range rows {
			if r.Rank > best {
				best = r.Rank
			}
		}
		for _, r := range rows {
			if best > 0 {
				textScore[r.ID] = r.Rank / best
			}
		}
	}
	var tagged []int64
	if len(q.Factors) > 0 || len(q.Services) > 0 {
		query, args := s.similarByTags(q)
		if err := db.Raw(query, args...).Scan(&tagged).Error; err != nil {
			return nil, fmt.Errorf("similar incidents by factor and service: %w", err)
		}
	}
	candidates := append([]int64{}, tagged...)
	for id := range textScore {
		candidates = append(candidates, id)
	}
	if len(candidates) == 0 {
		return nil, nil
	}
	var incidents []Incident
	err := db.Select("id", "title", "started_at").Preload("Services").Preload("Factors").
		Where("id IN ?", candidates).Find(&incidents).Error
	if err != nil {
		return nil, fmt.Errorf("load similar incidents: %w", err)
	}
	wantFactor, wantService := set(q.Factors), set(lower(q.Services))
	var out []Similar
	for _, inc := range incidents {
		if q.Before != nil && inc.StartedAt != nil && !inc.StartedAt.Before(*q.Before) {
			continue
		}
		sim := Similar{ID: inc.ID, Title: inc.Title, StartedAt: inc.StartedAt}
		for _, f := range inc.Factors {
			if wantFactor[f.Slug] {
				sim.Shares = append(sim.Shares, factorPhrase(f.Name))
				sim.sharedFactors = append(sim.sharedFactors, f.ID)
				sim.Score += 1.5
			}
		}
		for _, sv := range inc.Services {
			if wantService[strings.ToLower(sv.Name)] {
				sim.Shares = append(sim.Shares, sv.Name)
				sim.sharedServices = append(sim.sharedServices, sv.ID)
				sim.Score += 0.75
			}
		}
		if t := textScore[inc.ID]; t > 0 {
			sim.TextMatch = true
			sim.Score += 2 * t
		}
		if sim.Score > 0 {
			out = append(out, sim)
		}
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].Score != out[b].Score {
			return out[a].Score > out[b].Score
		}
		return out[a].ID > out[b].ID
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// similarRareTerms is the most words a ranking keeps when every word of its query is common.
const similarRareTerms = 4

// commonAmong is how many of the newest incidents tell whether a word is common.
const commonAmong = 2500

// rarerTerms returns the terms not found in a tenth or more of the most recent incidents (in at
// least commonAmong / 10 of the newest commonAmong), in their order. A common word says little
// about which incident is like another (its weight in bm25 is near nothing) and costs the most: bm25
// is worked out for every matched row and word, and with twelve words each in most of 10,000
// incidents ranking took 20 to 35 ms. One statement counts each word's documents among the
// newest, up to commonAmong / 10, which stops early on a common word.
func (s *Store) rarerTerms(db *gorm.DB, terms []string) ([]string, error) {
	parts := make([]string, len(terms))
	args := []any{sql.Named("common", commonAmong/10), sql.Named("sample", commonAmong)}
	for n, t := range terms {
		parts[n] = fmt.Sprintf(`SELECT %d AS n, (SELECT count(*) FROM (SELECT rowid FROM incidents_fts
			WHERE incidents_fts MATCH @t%d AND rowid >= (SELECT coalesce(max(id), 0) FROM incidents) - @sample
			ORDER BY rowid DESC LIMIT @common)) AS docs`, n, n)
		args = append(args, sql.Named(fmt.Sprintf("t%d", n), ftsQuery([]string{t}, "OR")))
	}
	var rows []struct{ N, Docs int }
	if err := db.Raw(strings.Join(parts, " UNION ALL "), args...).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("similar incidents: how common their words are: %w", err)
	}
	common := make([]bool, len(terms))
	for _, r := range rows {
		common[r.N] = r.Docs >= commonAmong/10
	}
	var rare []string
	for n, t := range terms {
		if !common[n] {
			rare = append(rare, t)
		}
	}
	return rare, nil
}

// earlierIncident is the SQL condition, with its named arguments, for an incident aliased alias
// that may be suggested for q: live, not q's own, and started before q's incident when both
// starts are known. On SQLite it compares Unix seconds rounded down, which lets through an
// incident started in the same second; the exact comparison is made again on the loaded incidents.
func (s *Store) earlierIncident(alias string, q SimilarQuery) (string, []any) {
	cond := alias + ".deleted_at IS NULL AND " + alias + ".id <> @exclude"
	args := []any{sql.Named("exclude", q.ExcludeID)}
	if q.Before != nil {
		started, before := "unixepoch("+alias+".started_at) <= @before", any(q.Before.Unix())
		if s.dialect == "postgres" {
			started, before = alias+".started_at < @before", q.Before.UTC()
		}
		cond += " AND (" + alias + ".started_at IS NULL OR " + started + ")"
		args = append(args, sql.Named("before", before))
	}
	return cond, args
}

// similarByText ranks the window most recent earlier incidents sharing any of terms and
// returns the best 40 with their text rank, higher better.
func (s *Store) similarByText(db *gorm.DB, q SimilarQuery, terms []string, window int) *gorm.DB {
	if s.dialect == "postgres" {
		cond, args := s.earlierIncident("i", q)
		args = append(args, sql.Named("query", tsQuery(terms, "|")), sql.Named("window", window),
			sql.Named("scan", postgresScan*window))
		return db.Raw(`WITH `+postgresWindow("incidents_fts", "JOIN incidents i ON i.id = x.id", cond)+`
			SELECT id, ts_rank(document, (SELECT to_tsquery('english', @query))) AS rank FROM matched
			ORDER BY rank DESC, id DESC LIMIT 40`, args...)
	}
	cond, args := s.earlierIncident("i", q)
	windowCond, _ := s.earlierIncident("wi", q)
	args = append(args, sql.Named("query", ftsQuery(terms, "OR")), sql.Named("window", window))
	// As in sqliteSearchQuery: bm25 inside the window only, and no second pass when nothing matched.
	return db.Raw(`WITH bound AS MATERIALIZED (
			SELECT min(r) AS id FROM (SELECT w.rowid AS r FROM incidents_fts w JOIN incidents wi ON wi.id = w.rowid
			WHERE w.incidents_fts MATCH @query AND `+windowCond+` ORDER BY w.rowid DESC LIMIT @window)
		)
		SELECT incidents_fts.rowid AS id, -bm25(incidents_fts, 5.0, 2.0, 1.0) AS rank
		FROM bound CROSS JOIN incidents_fts JOIN incidents i ON i.id = incidents_fts.rowid
		WHERE bound.id IS NOT NULL AND incidents_fts MATCH @query AND incidents_fts.rowid >= bound.id AND `+cond+`
		ORDER BY bm25(incidents_fts, 5.0, 2.0, 1.0), incidents_fts.rowid DESC LIMIT 40`, args...)
}

// similarByTags is one query for the 40 most recently filed earlier incidents sharing any of
// q's factors, then the 40 sharing any of its services. Each tag is read newest first from
// its (tag, incident) index and stops at 40, and the union of those is cut to 40 again, which
// is the 40 newest of all the incidents sharing any of them without collecting them all.
func (s *Store) similarByTags(q SimilarQuery) (string, []any) {
	cond, args := s.earlierIncident("i", q)
	newest := func(link, tagColumn, tagTable, nameColumn string, names []string) string {
		parts := make([]string, len(names))
		for n, name := range names {
			param := fmt.Sprintf("%s%d", tagTable, n)
			parts[n] = fmt.Sprintf(`SELECT incident_id FROM (SELECT t.incident_id FROM %s t JOIN incidents i ON i.id = t.incident_id
				WHERE t.%s = (SELECT id FROM %s WHERE %s = @%s) AND %s ORDER BY t.incident_id DESC LIMIT 40) AS %s`,
				link, tagColumn, tagTable, nameColumn, param, cond, param)
			args = append(args, sql.Named(param, name))
		}
		return `SELECT incident_id FROM (` + strings.Join(parts, " UNION ") + ` ORDER BY incident_id DESC LIMIT 40) AS by_` + tagTable
	}
	var queries []string
	if len(q.Factors) > 0 {
		queries = append(queries, newest("incident_factors", "factor_id", "factors", "slug", q.Factors))
	}
	if len(q.Services) > 0 {
		queries = append(queries, newest("incident_services", "service_id", "services", "name", q.Services))
	}
	return strings.Join(queries, " UNION ALL "), args
}

func set(values []string) map[string]bool {
	m := make(map[string]bool, len(values))
	for _, v := range values {
		m[v] = true
	}
	return m
}

func lower(values []string) []string {
	out := make([]string, len(values))
	for n, v := range values {
		out[n] = strings.ToLower(v)
	}
	return out
}

// Reason says what a similar incident shares, for people: "shares: retry amplification,
// Authorization Service; similar wording".
func (s Similar) Reason() string {
	var parts []string
	if len(s.Shares) > 0 {
		parts = append(parts, "shares: "+strings.Join(s.Shares, ", "))
	}
	if s.TextMatch {
		parts = append(parts, "similar wording")
	}
	return strings.Join(parts, "; ")
}
