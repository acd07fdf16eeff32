package web_test

import (
	"database/sql"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// triggerBody finds the statements between a trigger's BEGIN and END.
var triggerBody = regexp.MustCompile(`(?is)\bBEGIN\b(.*)\bEND\s*$`)

// countTriggerStatements rewrites every trigger of a SQLite test database so that, when it fires,
// it also adds the number of statements in its body to a probe row, and returns a function that
// reads the probe: statements run inside triggers, which the store's own count cannot see.
func countTriggerStatements(t *testing.T, db *sql.DB) func() int64 {
	t.Helper()
	if _, err := db.Exec("CREATE TABLE trigger_probe (n INTEGER NOT NULL); INSERT INTO trigger_probe VALUES (0)"); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'")
	if err != nil {
		t.Fatal(err)
	}
	triggers := map[string]string{}
	for rows.Next() {
		var name, text string
		if err := rows.Scan(&name, &text); err != nil {
			t.Fatal(err)
		}
		triggers[name] = text
	}
	rows.Close()
	if len(triggers) == 0 {
		t.Fatal("no triggers found: the probe would prove nothing")
	}
	for name, text := range triggers {
		m := triggerBody.FindStringSubmatchIndex(text)
		if m == nil {
			t.Fatalf("trigger %s: no BEGIN … END body", name)
		}
		n := strings.Count(text[m[2]:m[3]], ";")
		probed := text[:m[3]] + fmt.Sprintf("\n    UPDATE trigger_probe SET n = n + %d;\n", n) + text[m[3]:]
		if _, err := db.Exec("DROP TRIGGER " + name); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(probed); err != nil {
			t.Fatalf("%s: %v", probed, err)
		}
	}
	return func() int64 {
		var n int64
		if err := db.QueryRow("SELECT n FROM trigger_probe").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
}

// TestWriteStatementBudget counts every SQL statement, those inside triggers included, of two
// writes responders make all day: an API PUT that changes an incident's title and moves it to a
// service never seen before, and a timeline entry added through the incident page's form. The
// PUT's 15 (docs/caching.md): the session with its account (1), the incident's row with its
// milestone sources and links (1) and its nested records (5), the update (1), the service found
// or added (1), its links replaced (2), the history (1), the webhook endpoints (1), the version
// feed (1), and the title's search document in its trigger (1).
func TestWriteStatementBudget(t *testing.T) {
	a := newApp(t)
	r := a.json(http.MethodPost, "/api/v1/incidents", map[string]any{
		"title": "Checkout failing", "severity": "sev2", "status": "investigating", "time_zone": "UTC",
		"services": []string{"Checkout", "Payments"}, "regions": []string{"EU"}, "factors": []string{"retry-amplification"},
		"started_at": "2026-03-12T16:00:00Z", "detected_at": "2026-03-12T16:05:00Z",
		"follow_ups": []map[string]any{{"title": "Alert on checkout errors", "kind": "detect", "priority": "p1", "status": "open"}},
	})
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	db, err := a.store.SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	inTriggers := countTriggerStatements(t, db)
	count := func(name string, do func() response, want int) int64 {
		t.Helper()
		beforeTriggers := inTriggers()
		if r := do(); r.status != http.StatusOK && r.status != http.StatusSeeOther {
			t.Fatalf("%s: %d %s", name, r.status, r.body)
		}
		own := a.lastStatements.Load() // the request's, not a background worker's
		triggers := inTriggers() - beforeTriggers
		total := own + triggers
		t.Logf("%s: %d statements, %d of them in triggers", name, total, triggers)
		if total > int64(want) {
			t.Errorf("%s ran %d statements (%d in triggers), want at most %d", name, total, triggers, want)
		}
		return total
	}
	count("PUT changing the title and one service", func() response {
		return a.json(http.MethodPut, "/api/v1/incidents/1", map[string]any{
			"version": 1, "title": "Checkout failing in the EU", "severity": "sev2", "status": "investigating", "time_zone": "UTC",
			"services": []string{"Checkout", "Cards"}, "regions": []string{"EU"}, "factors": []string{"retry-amplification"},
			"started_at": "2026-03-12T16:00:00Z", "detected_at": "2026-03-12T16:05:00Z",
		})
	}, 15)
	count("a timeline entry added through the form", func() response {
		return a.post("/incidents/1/events", url.Values{"at": {"2026-03-12T16:20"}, "time_zone": {"UTC"}, "kind": {"note"}, "body": {"Rolled back the deploy."}})
	}, 8)
}
