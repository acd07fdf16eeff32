package models

import (
	"context"
	"fmt"
	"strings"

	"gorm.io/gorm"
)

// ExplainHistoryPage returns the query plan of one page of an incident's history.
func (s *Store) ExplainHistoryPage(ctx context.Context, incidentID int64, limit, offset int) (string, error) {
	query := s.read.ToSQL(func(tx *gorm.DB) *gorm.DB {
		var entries []AuditEntry
		return historyPage(tx, incidentID, limit, offset).Find(&entries)
	})
	prefix := "EXPLAIN QUERY PLAN "
	if s.dialect == "postgres" {
		prefix = "EXPLAIN "
	}
	rows, err := s.read.WithContext(ctx).Raw(prefix + query).Rows()
	if err != nil {
		return "", fmt.Errorf("explain history page: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return "", err
	}
	var plan strings.Builder
	for rows.Next() {
		values := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range values {
			ptrs[i] = &values[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return "", err
		}
		fmt.Fprintln(&plan, values...)
	}
	return plan.String(), rows.Err()
}
