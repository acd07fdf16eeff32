package models

import "context"

// InsightRowReads says how often the store read its copy of the insight rows whole and in part,
// and how many blocks of incidents the reads in part brought back.
func (s *Store) InsightRowReads() (whole, part, blocks int64) {
	m := &s.insightRows
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.fullReads, m.partReads, m.blocksRead
}

// InsightRowBytes estimates the memory the store's copy of the insight rows holds, and how many
// incidents it holds.
func (s *Store) InsightRowBytes() (bytes, incidents int) {
	m := &s.insightRows
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.table == nil {
		return 0, 0
	}
	return m.table.bytes(), len(m.table.rows)
}

// ExplainInsightBlocks returns the database's plan for each read of the insight rows of some
// blocks of incidents, by name.
func (s *Store) ExplainInsightBlocks(ctx context.Context, blocks []int64) (map[string]string, error) {
	return s.explainColumns(ctx, s.insightPartQueries(blocks))
}
