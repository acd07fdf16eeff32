package storetest

import (
	"context"
	"testing"

	"hindsight/models"
)

// Fill adds n incidents in one transaction, for benchmarks and query-count tests. They start an
// hour apart going back from 2026-01-01, carry the usual milestones, and are spread over four
// services, three regions and every severity and status (models.Store.FillSample).
func Fill(t testing.TB, s *models.Store, n int) {
	t.Helper()
	if err := s.FillSample(context.Background(), n); err != nil {
		t.Fatal(err)
	}
}
