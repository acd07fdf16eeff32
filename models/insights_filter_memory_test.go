package models_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
)

// TestEveryInsightsFilterFieldIsApplied walks InsightsFilter's fields and, for each, answers a
// filter that sets it alone from the store's in-memory copy (Insights) and from SQL
// (ComputeInsights): they must agree, and a field that narrows the incidents must change the
// answer. A field the in-memory filter forgot would answer as if unset and differ from SQL; a
// field this test has no value for fails it, so a new field cannot go unchecked.
func TestEveryInsightsFilterFieldIsApplied(t *testing.T) {
	s := storetest.SQLite(t)
	ctx := context.Background()
	storetest.Fill(t, s, 90)
	enrich(t, s)
	from := time.Date(2025, 12, 29, 0, 0, 0, 0, time.UTC)
	to := time.Date(2025, 12, 31, 0, 0, 0, 0, time.UTC)
	values := map[string]any{
		"From": &from, "To": &to, "Severity": "sev2", "Service": "Router", "Region": "Canada",
		"DetectionMethod": "customer_report", "Factor": "", "Interval": "quarter", "GroupBy": "service",
		"KeepValues": models.StripPlotLimit, "SlowestListed": 3, "InvalidListed": 2,
		// Fill records no milestone sources and no near misses: each of these chooses no incident.
		"Sources": models.SourcesMachine, "NearMisses": models.NearMissesOnly,
	}
	// Fill tags no incident with a factor; an unknown factor must choose no incident.
	values["Factor"] = "no-such-factor"
	whole, err := s.Insights(ctx, models.InsightsFilter{})
	if err != nil {
		t.Fatal(err)
	}
	typ := reflect.TypeFor[models.InsightsFilter]()
	for i := range typ.NumField() {
		name := typ.Field(i).Name
		value, ok := values[name]
		if !ok {
			t.Errorf("InsightsFilter.%s: this test has no value for it; add one so the in-memory filter is checked", name)
			continue
		}
		var f models.InsightsFilter
		reflect.ValueOf(&f).Elem().Field(i).Set(reflect.ValueOf(value))
		got, err := s.Insights(ctx, f)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, err := s.ComputeInsights(ctx, f)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("InsightsFilter.%s = %v: the in-memory answer differs from SQL's", name, value)
		}
		if reflect.DeepEqual(got, whole) {
			t.Errorf("InsightsFilter.%s = %v answers as if unset: the test's value proves nothing", name, value)
		}
	}
}
