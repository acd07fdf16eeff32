package models

import (
	"context"
	"fmt"
	"strings"
)

// SearchWithin is Search ranking only the newest window matches of each kind, so that tests can
// cross the window with a handful of records.
func (s *Store) SearchWithin(ctx context.Context, q string, limit, window int) ([]SearchHit, error) {
	return s.search(ctx, q, limit, window)
}

// SimilarWithin is SimilarIncidents ranking the text of only the window most recent candidates.
func (s *Store) SimilarWithin(ctx context.Context, q SimilarQuery, limit, window int) ([]Similar, error) {
	return s.similarIncidents(ctx, q, limit, window)
}

// ExplainSearch returns the plan of each statement of a search for q, one string each.
func (s *Store) ExplainSearch(ctx context.Context, q string) ([]string, error) {
	queries, args := s.searchQueries(searchTerms(q, 12), 30, searchWindow)
	prefix := "EXPLAIN QUERY PLAN "
	if s.dialect == "postgres" {
		prefix = "EXPLAIN "
	}
	var plans []string
	for _, query := range queries {
		rows, err := s.read.WithContext(ctx).Raw(prefix+query, args...).Rows()
		if err != nil {
			return nil, err
		}
		cols, err := rows.Columns()
		if err != nil {
			rows.Close()
			return nil, err
		}
		var plan []string
		for rows.Next() {
			values := make([]any, len(cols))
			pointers := make([]any, len(cols))
			for n := range values {
				pointers[n] = &values[n]
			}
			if err := rows.Scan(pointers...); err != nil {
				rows.Close()
				return nil, err
			}
			detail := values[len(values)-1]
			if b, ok := detail.([]byte); ok {
				detail = string(b)
			}
			plan = append(plan, fmt.Sprint(detail))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		plans = append(plans, strings.Join(plan, "\n"))
	}
	return plans, nil
}
