package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"gorm.io/gorm"
)

// The doctor recomputes, from the base tables alone, every derived table that can be recomputed
// (list totals, follow-up counts, recurrence copies, search documents, pending changes that must
// be folded by commit) and compares it with what is stored; for derived state that cannot be
// recomputed (marks compared for equality, kept rankings) it checks what can be checked. It does
// not care what keeps the tables: triggers or Go, the stored rows must equal what the base tables
// say. The tables it knows are in doctor_tables.go.

// doctorExamples is how many differing rows a report names per table.
const doctorExamples = 3

// DoctorTable is what the doctor found in one derived table.
type DoctorTable struct {
	// Name is the derived table, or the base table and its derived columns ("incident_factors
	// recurrence copy").
	Name string
	// Checked says what was compared: "recomputed" or what was checked of it.
	Checked string
	// Rows is how many rows the base tables call for (for a check of references, how many rows
	// were looked through).
	Rows int
	// Differ is how many rows differ: stored wrong, missing or stray.
	Differ int
	// Examples names a few of the rows that differ.
	Examples []string
	// Rewritten is how many rows a repair rewrote.
	Rewritten int
}

// DoctorSkip names derived state the doctor does not check, and why.
type DoctorSkip struct {
	Table, Reason string
}

// DoctorReport is the doctor's finding over the whole database.
type DoctorReport struct {
	Tables     []DoctorTable
	NotChecked []DoctorSkip
}

// OK tells whether every checked table holds what the base tables call for.
func (r DoctorReport) OK() bool {
	for _, t := range r.Tables {
		if t.Differ > 0 {
			return false
		}
	}
	return true
}

// Doctor recomputes every derived table it knows and compares it with what is stored, in one
// read transaction: a consistent snapshot on SQLite, REPEATABLE READ on PostgreSQL, so that a
// running server's writes cannot show as a difference. It writes nothing.
func (s *Store) Doctor(ctx context.Context) (DoctorReport, error) {
	opts := &sql.TxOptions{}
	if s.dialect == "postgres" {
		opts = &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	}
	var report DoctorReport
	err := s.read.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var err error
		report, err = s.doctor(tx, false)
		return err
	}, opts)
	if err != nil {
		return DoctorReport{}, fmt.Errorf("doctor: %w", err)
	}
	return report, nil
}

// DoctorRepair does what Doctor does inside one write transaction and rewrites every row that
// differs: a wrong row is replaced, a missing one written, a stray one deleted. When it rewrote
// anything it also records that everything changed, so that every process's caches read again. On
// PostgreSQL the transaction is REPEATABLE READ: a concurrent write to a row it rewrites makes it
// fail rather than lose either change.
func (s *Store) DoctorRepair(ctx context.Context) (DoctorReport, error) {
	opts := &sql.TxOptions{}
	if s.dialect == "postgres" {
		opts = &sql.TxOptions{Isolation: sql.LevelRepeatableRead}
	}
	var report DoctorReport
	err := s.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var err error
		report, err = s.doctor(tx, true)
		if err != nil || report.OK() {
			return err
		}
		c := newChanges()
		c.everything()
		return s.recordChanges(tx, c)
	}, opts)
	if err != nil {
		return DoctorReport{}, fmt.Errorf("doctor repair: %w", err)
	}
	return report, nil
}

func (s *Store) doctor(tx *gorm.DB, repair bool) (DoctorReport, error) {
	var report DoctorReport
	for _, spec := range doctorTables(s.dialect) {
		found, err := spec.check(tx, repair, s.dialect)
		if err != nil {
			return DoctorReport{}, fmt.Errorf("%s: %w", spec.name, err)
		}
		report.Tables = append(report.Tables, found)
	}
	report.NotChecked = doctorNotChecked(s.dialect)
	return report, nil
}

// doctorMode says how stored rows are compared with the rows the base tables call for, and how a
// repair rewrites them.
type doctorMode int

const (
	// doctorRows: the stored rows must be exactly the wanted ones; a repair deletes a differing
	// stored row and inserts the wanted one.
	doctorRows doctorMode = iota
	// doctorColumns: derived columns of a base table's rows; a repair updates them in place.
	doctorColumns
	// doctorMissing: every wanted row must be stored, and stored rows beyond them are fine; a
	// repair inserts the missing ones.
	doctorMissing
	// doctorStray: nothing is wanted; every row the got query finds is wrong and a repair runs
	// the spec's delete statements for its key.
	doctorStray
)

// doctorColumn is a column of a derived table as its queries name it (name), as the table names
// it (column, when different) and its type, for writing it back.
type doctorColumn struct {
	name, column string
	typ          doctorType
}

func (c doctorColumn) tableColumn() string {
	if c.column != "" {
		return c.column
	}
	return c.name
}

// doctorType is a column's kind; both sides of a comparison are read as text, and a repair casts
// the text back to the column's type in the dialect at hand.
type doctorType int

const (
	doctorText doctorType = iota
	doctorInt
	doctorBool
	doctorDate
	doctorTSVector
)

func (t doctorType) sql(dialect string) string {
	pg := dialect == "postgres"
	switch t {
	case doctorInt:
		if pg {
			return "BIGINT"
		}
		return "INTEGER"
	case doctorBool:
		if pg {
			return "BOOLEAN"
		}
		return "INTEGER"
	case doctorDate:
		if pg {
			return "DATE"
		}
	case doctorTSVector:
		return "TSVECTOR"
	}
	return "TEXT"
}

// doctorSpec is one derived table as the doctor knows it.
type doctorSpec struct {
	name    string   // printed
	table   string   // written by a repair
	covers  []string // further tables this check covers
	checked string   // what is compared, when not a full recompute
	mode    doctorMode
	keys    []doctorColumn
	values  []doctorColumn
	// want selects, from the base tables, the rows the table should hold, one column per key
	// and value, named as they are; got selects what it holds, named alike.
	want, got string
	// insertExtra is written with each inserted row besides its keys and values: column and SQL
	// value.
	insertExtra [2]string
	// deletes are run, with the key as arguments, for each stray row of a doctorStray spec.
	deletes []string
	// total counts the rows a doctorStray spec looks through, for the report.
	total string
}

type doctorRow struct {
	key    string
	keys   []sql.NullString
	values []sql.NullString
}

func (spec doctorSpec) read(tx *gorm.DB, query string) (map[string]doctorRow, []string, error) {
	cols := append(slices.Clone(spec.keys), spec.values...)
	casts := make([]string, len(cols))
	for n, c := range cols {
		casts[n] = "CAST(d." + c.name + " AS TEXT)"
	}
	rows, err := tx.Raw("SELECT " + strings.Join(casts, ", ") + " FROM (" + query + ") d").Rows()
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	out := map[string]doctorRow{}
	var order []string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for n := range vals {
			ptrs[n] = &vals[n]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, nil, err
		}
		r := doctorRow{keys: vals[:len(spec.keys)], values: vals[len(spec.keys):]}
		parts := make([]string, len(r.keys))
		for n, k := range r.keys {
			parts[n] = k.String
		}
		r.key = strings.Join(parts, "\x00")
		if _, seen := out[r.key]; !seen {
			order = append(order, r.key)
		}
		out[r.key] = r
	}
	return out, order, rows.Err()
}

func (spec doctorSpec) check(tx *gorm.DB, repair bool, dialect string) (DoctorTable, error) {
	found := DoctorTable{Name: spec.name, Checked: spec.checked}
	if found.Checked == "" {
		found.Checked = "recomputed from the base tables"
	}
	var want map[string]doctorRow
	var wantOrder []string
	if spec.want != "" {
		var err error
		if want, wantOrder, err = spec.read(tx, spec.want); err != nil {
			return found, fmt.Errorf("recompute: %w", err)
		}
	}
	got, gotOrder, err := spec.read(tx, spec.got)
	if err != nil {
		return found, fmt.Errorf("read stored rows: %w", err)
	}
	found.Rows = len(want)
	if spec.total != "" {
		var n int64
		if err := tx.Raw(spec.total).Row().Scan(&n); err != nil {
			return found, fmt.Errorf("count rows: %w", err)
		}
		found.Rows = int(n)
	}
	type difference struct{ want, got *doctorRow }
	var diffs []difference
	for _, key := range wantOrder {
		w := want[key]
		g, ok := got[key]
		switch {
		case !ok:
			diffs = append(diffs, difference{want: &w})
		case spec.mode != doctorMissing && !slices.Equal(w.values, g.values):
			diffs = append(diffs, difference{want: &w, got: &g})
		}
	}
	if spec.mode != doctorMissing {
		for _, key := range gotOrder {
			if _, ok := want[key]; !ok {
				g := got[key]
				diffs = append(diffs, difference{got: &g})
			}
		}
	}
	found.Differ = len(diffs)
	for _, d := range diffs {
		if len(found.Examples) == doctorExamples {
			break
		}
		found.Examples = append(found.Examples, spec.describe(d.want, d.got))
	}
	if !repair {
		return found, nil
	}
	for _, d := range diffs {
		var err error
		switch {
		case spec.mode == doctorStray:
			for _, del := range spec.deletes {
				if err = tx.Exec(del, textArgs(d.got.keys)...).Error; err != nil {
					break
				}
			}
		case spec.mode == doctorColumns && d.want != nil && d.got != nil:
			err = spec.update(tx, dialect, *d.want)
		case spec.mode == doctorColumns:
			// A base row the got query sees and the want query does not, or the reverse: the
			// two queries disagree on the rows themselves, which no update can mend.
			err = fmt.Errorf("row %s is not on both sides of the comparison", spec.keyText(d.want, d.got))
		default:
			if d.got != nil {
				err = spec.delete(tx, dialect, d.got.keys)
			}
			if err == nil && d.want != nil {
				err = spec.insert(tx, dialect, *d.want)
			}
		}
		if err != nil {
			return found, fmt.Errorf("repair %s: %w", spec.keyText(d.want, d.got), err)
		}
		found.Rewritten++
	}
	return found, nil
}

// param is a placeholder for a value read as text, cast back to the column's type.
func param(c doctorColumn, dialect string) string {
	return "CAST(CAST(? AS TEXT) AS " + c.typ.sql(dialect) + ")"
}

func textArgs(vals []sql.NullString) []any {
	args := make([]any, len(vals))
	for n, v := range vals {
		if v.Valid {
			args[n] = v.String
		}
	}
	return args
}

func (spec doctorSpec) where(dialect string) string {
	conds := make([]string, len(spec.keys))
	for n, k := range spec.keys {
		conds[n] = k.tableColumn() + " = " + param(k, dialect)
	}
	return " WHERE " + strings.Join(conds, " AND ")
}

func (spec doctorSpec) delete(tx *gorm.DB, dialect string, keys []sql.NullString) error {
	return tx.Exec("DELETE FROM "+spec.table+spec.where(dialect), textArgs(keys)...).Error
}

func (spec doctorSpec) insert(tx *gorm.DB, dialect string, r doctorRow) error {
	var cols, vals []string
	for _, c := range append(slices.Clone(spec.keys), spec.values...) {
		cols = append(cols, c.tableColumn())
		vals = append(vals, param(c, dialect))
	}
	if spec.insertExtra[0] != "" {
		cols = append(cols, spec.insertExtra[0])
		vals = append(vals, spec.insertExtra[1])
	}
	args := textArgs(append(slices.Clone(r.keys), r.values...))
	return tx.Exec("INSERT INTO "+spec.table+" ("+strings.Join(cols, ", ")+") VALUES ("+strings.Join(vals, ", ")+")", args...).Error
}

func (spec doctorSpec) update(tx *gorm.DB, dialect string, r doctorRow) error {
	sets := make([]string, len(spec.values))
	for n, c := range spec.values {
		sets[n] = c.tableColumn() + " = " + param(c, dialect)
	}
	args := textArgs(append(slices.Clone(r.values), r.keys...))
	return tx.Exec("UPDATE "+spec.table+" SET "+strings.Join(sets, ", ")+spec.where(dialect), args...).Error
}

func (spec doctorSpec) keyText(want, got *doctorRow) string {
	r := want
	if r == nil {
		r = got
	}
	parts := make([]string, len(spec.keys))
	for n, k := range spec.keys {
		parts[n] = k.name + "=" + shown(r.keys[n])
	}
	return strings.Join(parts, " ")
}

func (spec doctorSpec) describe(want, got *doctorRow) string {
	key := spec.keyText(want, got)
	values := func(r *doctorRow) string {
		if len(spec.values) == 0 {
			return "present"
		}
		parts := make([]string, len(spec.values))
		for n, c := range spec.values {
			parts[n] = c.name + "=" + shown(r.values[n])
		}
		return strings.Join(parts, " ")
	}
	switch {
	case got == nil:
		return key + ": missing, want " + values(want)
	case want == nil:
		return key + ": stray row, " + values(got)
	}
	var parts []string
	for n, c := range spec.values {
		if want.values[n] != got.values[n] {
			parts = append(parts, c.name+" stored "+shown(got.values[n])+", want "+shown(want.values[n]))
		}
	}
	return key + ": " + strings.Join(parts, ", ")
}

func shown(v sql.NullString) string {
	if !v.Valid {
		return "NULL"
	}
	const most = 40
	s := v.String
	if len([]rune(s)) > most {
		s = string([]rune(s)[:most]) + "…"
	}
	if s == "" || strings.ContainsAny(s, " \t\n") {
		return fmt.Sprintf("%q", s)
	}
	return s
}

// ErrDoctorFound is returned by callers that treat a difference as a failure.
var ErrDoctorFound = errors.New("derived state differs from the base tables")
