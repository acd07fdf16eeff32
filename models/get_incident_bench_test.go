package models_test

import (
	"context"
	"testing"

	"hindsight/models"
	"hindsight/models/demo"
	"hindsight/models/storetest"
)

// BenchmarkGetIncident reads one of the sample incidents (seed 000: 7 timeline entries, 2 impact
// windows, 5 follow-ups) again and again while nothing changes: what the API's GET and every page
// that loads an incident pay when the page cache does not answer.
func BenchmarkGetIncident(b *testing.B) {
	s := storetest.SQLite(b)
	ctx := context.Background()
	if _, err := demo.Load(ctx, s); err != nil {
		b.Fatal(err)
	}
	list, _, err := s.ListIncidents(ctx, models.IncidentFilter{Limit: 1})
	if err != nil || len(list) == 0 {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.GetIncident(ctx, list[0].ID); err != nil {
			b.Fatal(err)
		}
	}
}
