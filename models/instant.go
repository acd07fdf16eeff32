package models

import (
	"fmt"
	"reflect"
	"time"

	"gorm.io/gorm"
)

// The instants Hindsight keeps must round-trip through both databases and JSON, in UTC and in any
// zone they are shown in. JSON (RFC 3339) and SQLite's text dates hold four-digit years only, so
// an instant must lie within the years 0001 to 9999 in every zone: a day inside either end covers
// every offset a zone has had (at most about 15 hours from UTC).
var (
	earliestInstant = time.Date(1, time.January, 2, 0, 0, 0, 0, time.UTC)
	latestInstant   = time.Date(9999, time.December, 30, 23, 59, 59, 999999999, time.UTC)
)

// InstantMessage is the message shown beside a time field whose value is out of range.
const InstantMessage = "Must be a date between the years 0001 and 9999."

// InstantInRange tells whether t can be stored, read back and shown in any zone.
func InstantInRange(t time.Time) bool {
	return !t.Before(earliestInstant) && !t.After(latestInstant)
}

// ClampInstant moves an out-of-range instant to the nearest one that can be kept.
func ClampInstant(t time.Time) time.Time {
	switch {
	case t.Before(earliestInstant):
		return earliestInstant
	case t.After(latestInstant):
		return latestInstant
	}
	return t
}

var timeType = reflect.TypeOf(time.Time{})

// outOfRangeInstants lists the time fields of a value (a struct, a pointer to one, a slice of
// them or a map of column values) that hold an instant out of range, by their Go field path. A
// zero time.Time is not checked: gorm fills it in (created_at) or it means "not set".
func outOfRangeInstants(v reflect.Value, path string, found *[]string) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			outOfRangeInstants(v.Elem(), path, found)
		}
	case reflect.Struct:
		if v.Type() == timeType {
			if t := v.Interface().(time.Time); !t.IsZero() && !InstantInRange(t) {
				*found = append(*found, path)
			}
			return
		}
		for n := 0; n < v.NumField(); n++ {
			f := v.Type().Field(n)
			if !f.IsExported() {
				continue
			}
			// Only instants and the records that hold them: associations are checked when they are
			// written themselves.
			if k := f.Type.Kind(); k == reflect.Struct || (k == reflect.Pointer && f.Type.Elem().Kind() == reflect.Struct) {
				outOfRangeInstants(v.Field(n), joinPath(path, f.Name), found)
			}
		}
	case reflect.Slice, reflect.Array:
		for n := 0; n < v.Len(); n++ {
			outOfRangeInstants(v.Index(n), fmt.Sprintf("%s[%d]", path, n), found)
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			outOfRangeInstants(iter.Value(), joinPath(path, fmt.Sprint(iter.Key().Interface())), found)
		}
	}
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// refuseOutOfRangeInstants is the store's last check before a row is written: whatever path a
// value came by (a form, the API, an importer, the CLI), an instant the database or JSON cannot
// give back is refused, so the write fails whole instead of leaving a record nobody can read.
func refuseOutOfRangeInstants(db *gorm.DB) {
	if db.Statement == nil || db.Statement.Dest == nil {
		return
	}
	var found []string
	outOfRangeInstants(reflect.ValueOf(db.Statement.Dest), "", &found)
	if len(found) == 0 {
		return
	}
	var errs FieldErrors
	for _, f := range found {
		errs.Add(columnName(db, f), InstantMessage)
	}
	_ = db.AddError(fmt.Errorf("write %s: %w", db.Statement.Table, errs))
}

// columnName turns a Go field path ("ResolvedAt", "[2].At") into the column a person knows.
func columnName(db *gorm.DB, path string) string {
	name := path
	for n := len(path) - 1; n >= 0; n-- {
		if path[n] == '.' || path[n] == ']' {
			name = path[n+1:]
			break
		}
	}
	if db.Statement.Schema != nil {
		if f := db.Statement.Schema.LookUpField(name); f != nil {
			return f.DBName
		}
	}
	return name
}

func (s *Store) checkInstants(db *gorm.DB) error {
	cb := db.Callback()
	for _, err := range []error{
		cb.Create().Before("gorm:create").Register("hindsight:instants", refuseOutOfRangeInstants),
		cb.Update().Before("gorm:update").Register("hindsight:instants", refuseOutOfRangeInstants),
	} {
		if err != nil {
			return fmt.Errorf("register instant check: %w", err)
		}
	}
	return nil
}
