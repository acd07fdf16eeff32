package models

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
)

// The whole-database export (package native) carries every base table a team would lose. Most
// have a typed shape in the document (the incidents with what is nested in them, the names, the
// taxonomy, the templates, the published versions, the settings, the history). The tables below
// are carried row for row, column by column as stored, in the order a restore writes them: each
// after the tables it refers to. Secrets and tokens are carried as stored (hashes stay hashes),
// so integrations keep working and subscribers' links stay valid.
var nativeVerbatimTables = []string{
	"milestone_sources", "incident_images",
	"statuspage_incidents", "statuspage_updates", "status_logo",
	"components", "component_services",
	"maintenances", "maintenance_components", "maintenance_updates",
	"subscribers", "subscriber_components",
	"integrations", "alert_groups", "alert_states",
	"webhook_endpoints", "webhook_overdue_notices",
}

// nativeTypedTables are the base tables the document carries in typed shapes of its own.
var nativeTypedTables = []string{
	"services", "regions", "factors", "incidents", "incident_services", "incident_regions",
	"incident_factors", "timeline_events", "impact_windows", "impact_window_services",
	"follow_ups", "follow_up_factors", "incident_links", "incident_sections",
	"postmortem_versions", "settings", "postmortem_templates", "template_sections",
	"template_defaults", "audit_entries",
}

// NativeSkip is a base table the whole-database export leaves out, and why.
type NativeSkip struct{ Table, Reason string }

// nativeNotExported are the base tables left out of the document on purpose.
var nativeNotExported = []NativeSkip{
	{"users", "accounts carry password hashes, and a file that travels should not: an admin sets the accounts up again on the new database"},
	{"sessions", "sign-ins belong to the accounts, which are not exported"},
	{"api_tokens", "tokens belong to the accounts, which are not exported"},
	{"login_failures", "a throttle's memory of failed sign-ins, of accounts not exported"},
	{"oidc_identities", "links accounts to an identity provider; the accounts are not exported"},
	{"calendar_feeds", "each feed's secret belongs to an account, which is not exported"},
	{"language_rules_off", "each account's own choice of writing checks; the accounts are not exported"},
	{"goose_db_version", "the schema's own record: the new database is migrated before the restore"},
	{"webhook_deliveries", "the webhook outbox and its log: what was sent, or failed, from the old database"},
	{"webhook_attempts", "the log of the webhook outbox's attempts"},
	{"subscriber_messages", "the subscribers' outbox: messages about updates already sent or due from the old database"},
	{"subscriber_deliveries", "the subscribers' outbox: who was sent what, from the old database"},
	{"subscribe_attempts", "the subscribe form's throttle, kept for minutes"},
	{"review_requests", "a review asks accounts, which are not exported; the approvals it led to are in the history"},
	{"review_threads", "review comments are the accounts' own conversation and name them; the accounts are not exported"},
	{"review_comments", "replies in the review threads, by accounts not exported"},
	{"debriefs", "a meeting of accounts (facilitator, note taker), which are not exported"},
	{"debrief_participants", "the accounts invited to a debrief, which are not exported"},
	{"debrief_invitations", "the debrief invitations' outbox: mail already sent or due from the old database"},
}

// NativeTableCoverage says how the whole-database export carries a base table: "typed",
// "verbatim", "not exported" (with the reason), or "" for a table it does not know.
func NativeTableCoverage(table string) (kind, reason string) {
	switch {
	case slices.Contains(nativeTypedTables, table):
		return "typed", ""
	case slices.Contains(nativeVerbatimTables, table):
		return "verbatim", ""
	}
	for _, skip := range nativeNotExported {
		if skip.Table == table {
			return "not exported", skip.Reason
		}
	}
	return "", ""
}

// NativeVerbatimTables lists the tables the whole-database export carries row for row, in the
// order a restore writes them.
func NativeVerbatimTables() []string { return slices.Clone(nativeVerbatimTables) }

// TableRows are rows of one table as the native export carries them, each a map from column to
// its value as JSON: integers, booleans, text, instants as RFC 3339 in UTC, bytes in base64.
type TableRows struct {
	Table string
	Rows  []map[string]json.RawMessage
}

// columnKind is what a column holds, whatever the dialect calls it.
type columnKind int

const (
	kindText columnKind = iota
	kindInt
	kindFloat
	kindBool
	kindTime
	kindBytes
)

func kindOf(databaseType string) columnKind {
	t := strings.ToUpper(databaseType)
	switch {
	case strings.Contains(t, "BOOL"):
		return kindBool
	case strings.Contains(t, "INT") || strings.Contains(t, "SERIAL"):
		return kindInt
	case strings.Contains(t, "TIMESTAMP") || strings.Contains(t, "DATETIME"):
		return kindTime
	case strings.Contains(t, "BLOB") || strings.Contains(t, "BYTEA"):
		return kindBytes
	case strings.Contains(t, "REAL") || strings.Contains(t, "DOUBLE") || strings.Contains(t, "FLOAT") || strings.Contains(t, "NUMERIC"):
		return kindFloat
	}
	return kindText
}

// tableColumns reads the columns of a table and what each holds, in the table's order.
func tableColumns(db *gorm.DB, table string) ([]string, []columnKind, error) {
	rows, err := db.Raw("SELECT * FROM " + table + " WHERE 1 = 0").Rows()
	if err != nil {
		return nil, nil, fmt.Errorf("read the columns of %s: %w", table, err)
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, nil, fmt.Errorf("read the columns of %s: %w", table, err)
	}
	names := make([]string, len(types))
	kinds := make([]columnKind, len(types))
	for n, ct := range types {
		names[n], kinds[n] = ct.Name(), kindOf(ct.DatabaseTypeName())
	}
	return names, kinds, rows.Err()
}

// EachTableRow calls fn with every row of one of the tables the native export carries row for
// row, ordered by all its columns, each value in the shape JSON gives it on either dialect.
func (s *Store) EachTableRow(ctx context.Context, table string, fn func(map[string]any) error) error {
	if !slices.Contains(nativeVerbatimTables, table) {
		return fmt.Errorf("table %s is not one the export carries row for row", table)
	}
	db := s.read.WithContext(ctx)
	names, kinds, err := tableColumns(db, table)
	if err != nil {
		return err
	}
	order := make([]string, len(names))
	for n := range names {
		order[n] = fmt.Sprint(n + 1)
	}
	rows, err := db.Raw("SELECT * FROM " + table + " ORDER BY " + strings.Join(order, ", ")).Rows()
	if err != nil {
		return fmt.Errorf("read %s: %w", table, err)
	}
	defer rows.Close()
	for rows.Next() {
		values := make([]any, len(names))
		ptrs := make([]any, len(names))
		for n := range values {
			ptrs[n] = &values[n]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return fmt.Errorf("read %s: %w", table, err)
		}
		row := make(map[string]any, len(names))
		for n, name := range names {
			v, err := portable(values[n], kinds[n])
			if err != nil {
				return fmt.Errorf("read %s.%s: %w", table, name, err)
			}
			row[name] = v
		}
		if err := fn(row); err != nil {
			return err
		}
	}
	return rows.Err()
}

// portable turns a value as a driver scanned it into the same JSON-ready value on both dialects.
func portable(v any, kind columnKind) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch kind {
	case kindBool:
		switch b := v.(type) {
		case bool:
			return b, nil
		case int64:
			return b != 0, nil
		}
	case kindInt:
		if n, ok := v.(int64); ok {
			return n, nil
		}
	case kindTime:
		switch t := v.(type) {
		case time.Time:
			return t.UTC().Truncate(time.Microsecond), nil
		case string:
			return parseStoredTime(t)
		case []byte:
			return parseStoredTime(string(t))
		}
	case kindBytes:
		switch b := v.(type) {
		case []byte:
			return slices.Clone(b), nil
		case string:
			return []byte(b), nil
		}
	case kindFloat:
		if f, ok := v.(float64); ok {
			return f, nil
		}
	default:
		switch t := v.(type) {
		case string:
			return t, nil
		case []byte:
			return string(t), nil
		}
	}
	return nil, fmt.Errorf("unexpected value %T", v)
}

func parseStoredTime(text string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999-07:00", "2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999"} {
		if t, err := time.Parse(layout, text); err == nil {
			return t.UTC().Truncate(time.Microsecond), nil
		}
	}
	return time.Time{}, fmt.Errorf("not a time: %q", text)
}

// fromPortable reads a row's JSON value back as the Go value the column takes.
func fromPortable(raw json.RawMessage, kind columnKind) (any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var err error
	switch kind {
	case kindBool:
		var b bool
		err = json.Unmarshal(raw, &b)
		return b, err
	case kindInt:
		var n int64
		err = json.Unmarshal(raw, &n)
		return n, err
	case kindFloat:
		var f float64
		err = json.Unmarshal(raw, &f)
		return f, err
	case kindTime:
		var t time.Time
		err = json.Unmarshal(raw, &t)
		return t.UTC(), err
	case kindBytes:
		var b []byte
		err = json.Unmarshal(raw, &b)
		return b, err
	}
	var text string
	err = json.Unmarshal(raw, &text)
	return text, err
}

// verbatimBatch bounds the rows of one INSERT: SQLite takes at most 500 rows in a VALUES list.
const verbatimBatch = 200

// restoreTables writes the tables carried row for row, each after those it refers to. A table
// or column this schema does not have stops the restore.
func restoreTables(tx *gorm.DB, tables []TableRows) (int, error) {
	byTable := map[string][]map[string]json.RawMessage{}
	for _, t := range tables {
		if !slices.Contains(nativeVerbatimTables, t.Table) {
			return 0, fmt.Errorf("table %s: not a table this Hindsight restores", t.Table)
		}
		byTable[t.Table] = append(byTable[t.Table], t.Rows...)
	}
	total := 0
	for _, table := range nativeVerbatimTables {
		rows := byTable[table]
		if len(rows) == 0 {
			continue
		}
		names, kinds, err := tableColumns(tx, table)
		if err != nil {
			return 0, err
		}
		kindByName := make(map[string]columnKind, len(names))
		for n, name := range names {
			kindByName[name] = kinds[n]
		}
		for chunk := range chunks(rows, verbatimBatch) {
			if err := insertVerbatim(tx, table, names, kindByName, chunk); err != nil {
				return 0, err
			}
		}
		total += len(rows)
	}
	return total, nil
}

// insertVerbatim writes rows of one table in one statement; every row names the same columns,
// those of the document's first row.
func insertVerbatim(tx *gorm.DB, table string, names []string, kinds map[string]columnKind, rows []map[string]json.RawMessage) error {
	var columns []string
	for _, name := range names {
		if _, ok := rows[0][name]; ok {
			columns = append(columns, name)
		}
	}
	var args []any
	values := make([]string, len(rows))
	marks := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(columns)), ", ") + ")"
	for n, row := range rows {
		if len(row) != len(columns) {
			for name := range row {
				if _, ok := kinds[name]; !ok {
					return fmt.Errorf("%s: there is no column %s", table, name)
				}
			}
			return fmt.Errorf("%s row %d: its columns differ from the first row's", table, n+1)
		}
		for _, name := range columns {
			v, err := fromPortable(row[name], kinds[name])
			if err != nil {
				return fmt.Errorf("%s row %d, %s: %w", table, n+1, name, err)
			}
			args = append(args, v)
		}
		values[n] = marks
	}
	quoted := make([]string, len(columns))
	for n, c := range columns {
		quoted[n] = `"` + c + `"`
	}
	query := "INSERT INTO " + table + " (" + strings.Join(quoted, ", ") + ") VALUES " + strings.Join(values, ", ")
	if err := tx.Exec(query, args...).Error; err != nil {
		return fmt.Errorf("restore %s: %w", table, err)
	}
	return nil
}

// verbatimTablesEmpty reports whether every table carried row for row is empty.
func verbatimTablesEmpty(tx *gorm.DB) (bool, error) {
	for _, table := range nativeVerbatimTables {
		var n int64
		if err := tx.Table(table).Count(&n).Error; err != nil {
			return false, fmt.Errorf("check %s is empty: %w", table, err)
		}
		if n > 0 {
			return false, nil
		}
	}
	return true, nil
}

// resetVerbatimSequences moves PostgreSQL's id sequences past the restored ids of the tables
// carried row for row that have one.
func resetVerbatimSequences(tx *gorm.DB) error {
	for _, table := range nativeVerbatimTables {
		names, _, err := tableColumns(tx, table)
		if err != nil {
			return err
		}
		if !slices.Contains(names, "id") {
			continue
		}
		var seq sql.NullString
		if err := tx.Raw("SELECT pg_get_serial_sequence(?, 'id')", table).Scan(&seq).Error; err != nil {
			return fmt.Errorf("find the %s id sequence: %w", table, err)
		}
		if !seq.Valid {
			continue
		}
		query := fmt.Sprintf(`SELECT setval(?, COALESCE((SELECT MAX(id) FROM %s), 0) + 1, false)`, table)
		if err := tx.Exec(query, seq.String).Error; err != nil {
			return fmt.Errorf("reset the %s id sequence: %w", table, err)
		}
	}
	return nil
}
