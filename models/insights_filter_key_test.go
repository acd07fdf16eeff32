package models

import (
	"reflect"
	"testing"
	"time"
)

// TestEveryInsightsFilterFieldIsKeyed walks InsightsFilter's fields: a filter that differs from
// the default in one field only must have another cache key, unless the field is a list length,
// which the key leaves out on purpose (a longer list serves a shorter one) and limits carries. A
// field added to the filter and forgotten in insightsKey fails here.
func TestEveryInsightsFilterFieldIsKeyed(t *testing.T) {
	lengths := map[string]bool{"KeepValues": true, "SlowestListed": true, "InvalidListed": true}
	base := InsightsFilter{}.normalized()
	typ := reflect.TypeFor[InsightsFilter]()
	for i := range typ.NumField() {
		field := typ.Field(i)
		f := base
		v := reflect.ValueOf(&f).Elem().Field(i)
		switch v.Kind() {
		case reflect.String:
			v.SetString("probe")
		case reflect.Int:
			v.SetInt(7)
		case reflect.Pointer:
			at := time.Date(2026, 3, 12, 16, 0, 0, 0, time.UTC)
			v.Set(reflect.ValueOf(&at))
		default:
			t.Fatalf("InsightsFilter.%s is a %s: teach this test a value for it", field.Name, v.Kind())
		}
		f = f.normalized()
		switch {
		case lengths[field.Name]:
			if f.key() != base.key() {
				t.Errorf("InsightsFilter.%s, a list length, changes the cache key", field.Name)
			}
			if f.limits() == base.limits() {
				t.Errorf("InsightsFilter.%s, a list length, is not in limits()", field.Name)
			}
		case f.key() == base.key():
			t.Errorf("InsightsFilter.%s is missing from the cache key (insightsKey): two filters differing in it would share an answer", field.Name)
		}
	}
}
