package models

import (
	"context"
	"fmt"
	"html"
	"sort"
	"strings"
	"time"
	"unicode"
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

// The text PostgreSQL indexes for each table, exactly as the GIN indexes of migration 00004 say.
const (
	pgIncidentText = `to_tsvector('english', title || ' ' || summary || ' ' || customer_impact || ' ' || root_cause || ' ' || "trigger" || ' ' || detection || ' ' || response || ' ' || lessons)`
	pgEventText    = `to_tsvector('english', body)`
	pgFollowUpText = `to_tsvector('english', title || ' ' || description || ' ' || verification)`
)

// Search finds incidents, timeline entries and follow-ups matching every word of q, best first.
func (s *Store) Search(ctx context.Context, q string, limit int) ([]SearchHit, error) {
	terms := searchTerms(q, 12)
	if len(terms) == 0 {
		return nil, nil
	}
	db := s.read.WithContext(ctx)
	var hits []SearchHit
	var queries []string
	var args [][]any
	if s.dialect == "postgres" {
		tq := tsQuery(terms, "&")
		opts := "StartSel=" + markOpen + ", StopSel=" + markClose + ", MaxWords=24, MinWords=10"
		queries = []string{
			`SELECT 'incident' AS kind, i.id AS incident_id, i.id AS id, i.title AS title, i.title AS incident_title,
				ts_headline('english', i.summary || ' ' || i.root_cause || ' ' || i.customer_impact, to_tsquery('english', ?), ?) AS snippet_html,
				ts_rank(` + pgIncidentText + `, to_tsquery('english', ?)) AS rank
			FROM incidents i WHERE i.deleted_at IS NULL AND ` + strings.ReplaceAll(pgIncidentText, "title", "i.title") + ` @@ to_tsquery('english', ?)
			ORDER BY rank DESC LIMIT ?`,
			`SELECT 'timeline_event' AS kind, e.incident_id, e.id, i.title AS title, i.title AS incident_title,
				ts_headline('english', e.body, to_tsquery('english', ?), ?) AS snippet_html,
				ts_rank(` + pgEventText + `, to_tsquery('english', ?)) AS rank
			FROM timeline_events e JOIN incidents i ON i.id = e.incident_id AND i.deleted_at IS NULL
			WHERE ` + pgEventText + ` @@ to_tsquery('english', ?) ORDER BY rank DESC LIMIT ?`,
			`SELECT 'follow_up' AS kind, f.incident_id, f.id, f.title AS title, i.title AS incident_title,
				ts_headline('english', f.title || ' ' || f.description || ' ' || f.verification, to_tsquery('english', ?), ?) AS snippet_html,
				ts_rank(` + strings.ReplaceAll(pgFollowUpText, "title", "f.title") + `, to_tsquery('english', ?)) AS rank
			FROM follow_ups f JOIN incidents i ON i.id = f.incident_id AND i.deleted_at IS NULL
			WHERE ` + strings.ReplaceAll(pgFollowUpText, "title", "f.title") + ` @@ to_tsquery('english', ?) ORDER BY rank DESC LIMIT ?`,
		}
		for range queries {
			args = append(args, []any{tq, opts, tq, tq, limit})
		}
	} else {
		fq := ftsQuery(terms, "AND")
		// bm25 is lower for better matches; it is negated so that higher is better everywhere.
		queries = []string{
			`SELECT 'incident' AS kind, i.id AS incident_id, i.id AS id, i.title AS title, i.title AS incident_title,
				snippet(incidents_fts, -1, ?, ?, '…', 16) AS snippet_html, -bm25(incidents_fts, 5.0, 2.0, 1.0) AS rank
			FROM incidents_fts JOIN incidents i ON i.id = incidents_fts.rowid AND i.deleted_at IS NULL
			WHERE incidents_fts MATCH ? ORDER BY bm25(incidents_fts, 5.0, 2.0, 1.0) LIMIT ?`,
			`SELECT 'timeline_event' AS kind, e.incident_id, e.id, i.title AS title, i.title AS incident_title,
				snippet(timeline_events_fts, -1, ?, ?, '…', 16) AS snippet_html, -bm25(timeline_events_fts) AS rank
			FROM timeline_events_fts JOIN timeline_events e ON e.id = timeline_events_fts.rowid
			JOIN incidents i ON i.id = e.incident_id AND i.deleted_at IS NULL
			WHERE timeline_events_fts MATCH ? ORDER BY bm25(timeline_events_fts) LIMIT ?`,
			`SELECT 'follow_up' AS kind, f.incident_id, f.id, f.title AS title, i.title AS incident_title,
				snippet(follow_ups_fts, -1, ?, ?, '…', 16) AS snippet_html, -bm25(follow_ups_fts, 3.0, 1.0, 1.0) AS rank
			FROM follow_ups_fts JOIN follow_ups f ON f.id = follow_ups_fts.rowid
			JOIN incidents i ON i.id = f.incident_id AND i.deleted_at IS NULL
			WHERE follow_ups_fts MATCH ? ORDER BY bm25(follow_ups_fts, 3.0, 1.0, 1.0) LIMIT ?`,
		}
		for range queries {
			args = append(args, []any{markOpen, markClose, fq, limit})
		}
	}
	for n, query := range queries {
		var part []SearchHit
		if err := db.Raw(query, args[n]...).Scan(&part).Error; err != nil {
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

// SimilarIncidents ranks up to limit earlier incidents by shared words (FTS5 bm25 on SQLite,
// ts_rank on PostgreSQL), shared factors and shared services, and says what they share.
func (s *Store) SimilarIncidents(ctx context.Context, q SimilarQuery, limit int) ([]Similar, error) {
	db := s.read.WithContext(ctx)
	var terms []string
	for _, t := range searchTerms(q.Text, 200) {
		if !stopWords[t] && len(t) > 2 && len(terms) < 12 {
			terms = append(terms, t)
		}
	}
	textScore := map[int64]float64{}
	if len(terms) > 0 {
		var rows []struct {
			ID   int64
			Rank float64
		}
		var err error
		if s.dialect == "postgres" {
			err = db.Raw(`SELECT id, ts_rank(`+pgIncidentText+`, to_tsquery('english', ?)) AS rank FROM incidents
				WHERE deleted_at IS NULL AND id <> ? AND `+pgIncidentText+` @@ to_tsquery('english', ?)
				ORDER BY rank DESC LIMIT 40`, tsQuery(terms, "|"), q.ExcludeID, tsQuery(terms, "|")).Scan(&rows).Error
		} else {
			err = db.Raw(`SELECT rowid AS id, -bm25(incidents_fts, 5.0, 2.0, 1.0) AS rank FROM incidents_fts
				WHERE incidents_fts MATCH ? AND rowid <> ? ORDER BY bm25(incidents_fts, 5.0, 2.0, 1.0) LIMIT 40`,
				ftsQuery(terms, "OR"), q.ExcludeID).Scan(&rows).Error
		}
		if err != nil {
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
	// Candidates sharing a factor or service: the most recent ones are enough to rank.
	var tagged []int64
	if len(q.Factors) > 0 {
		var ids []int64
		err := db.Raw(`SELECT DISTINCT fi.incident_id FROM incident_factors fi JOIN factors f ON f.id = fi.factor_id
			WHERE f.slug IN ? AND fi.incident_id <> ? ORDER BY fi.incident_id DESC LIMIT 40`, q.Factors, q.ExcludeID).Scan(&ids).Error
		if err != nil {
			return nil, fmt.Errorf("similar incidents by factor: %w", err)
		}
		tagged = append(tagged, ids...)
	}
	if len(q.Services) > 0 {
		var ids []int64
		err := db.Raw(`SELECT DISTINCT si.incident_id FROM incident_services si JOIN services s ON s.id = si.service_id
			WHERE s.name IN ? AND si.incident_id <> ? ORDER BY si.incident_id DESC LIMIT 40`, q.Services, q.ExcludeID).Scan(&ids).Error
		if err != nil {
			return nil, fmt.Errorf("similar incidents by service: %w", err)
		}
		tagged = append(tagged, ids...)
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
				sim.Shares = append(sim.Shares, strings.ToLower(f.Name[:1])+f.Name[1:])
				sim.Score += 1.5
			}
		}
		for _, sv := range inc.Services {
			if wantService[strings.ToLower(sv.Name)] {
				sim.Shares = append(sim.Shares, sv.Name)
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
