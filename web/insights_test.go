package web_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
)

// fileTTDs files one incident per time to detect, in minutes, each starting a day after the last
// in March 2026 and resolved an hour after detection. A negative TTD is invalid; math.MinInt
// leaves detection unrecorded.
func fileTTDs(t *testing.T, s *models.Store, severity string, ttds ...int) []int64 {
	t.Helper()
	var ids []int64
	for n, ttd := range ttds {
		start := time.Date(2026, 3, 1+n, 10, 0, 0, 0, time.UTC)
		m := models.Milestones{StartedAt: &start}
		resolved := start.Add(3 * time.Hour)
		m.ResolvedAt = &resolved
		if ttd != noDetection {
			detected := start.Add(time.Duration(ttd) * time.Minute)
			m.DetectedAt = &detected
		}
		in := models.IncidentInput{
			Title: fmt.Sprintf("Incident detected after %d min", ttd), Severity: severity, Status: "resolved",
			DetectionMethod: "customer_report", TimeZone: "UTC", PostmortemState: "none", Services: []string{"API"}, Milestones: m,
		}
		inc, err := s.CreateIncident(context.Background(), in, models.Children{})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, inc.ID)
	}
	return ids
}

const noDetection = -1 << 31

// TestInsightsHandComputed checks the page, the API and the CSV against numbers worked out by
// hand: TTDs of 10, 20, 30, 40 and 100 minutes give a median of 30 min, a p90 of
// 40 + 0.6 × (100 − 40) = 76 min and a mean of 40 min; one more incident detected before it
// started is invalid, and one with no detection time is not recorded: 6 of 7 recorded, 1 invalid.
func TestInsightsHandComputed(t *testing.T) {
	a := newApp(t)
	ids := fileTTDs(t, a.store, "sev2", 10, 20, 30, 40, 100, -15, noDetection)

	check(t, "page", a.get("/insights"), http.StatusOK, []string{
		`id="stat-time_to_detect"`, "30 min <small>median</small>", "p90 1 h 16 min · mean 40 min", "6 of 7 recorded",
		`<span class="invalid">1 invalid</span>`,
		`<svg xmlns="http://www.w3.org/2000/svg" class="chart small-multiple fig-time_to_detect"`, "<title>Median: 30 min</title>",
		"Slowest detections", fmt.Sprintf(`href="/incidents/%d"`, ids[4]), "Incident detected after 100 min",
		"Invalid figures", fmt.Sprintf(`href="/incidents/%d"`, ids[5]),
		`href="/insights.csv?table=figures"`, `href="/insights.csv?table=trend"`, `href="/insights.csv?table=groups"`,
		`aria-current="page">Insights</a>`, "Time to detect by severity",
	}, []string{"style="})

	var body map[string]any
	r := a.json(http.MethodGet, "/api/v1/insights", nil)
	if r.status != http.StatusOK {
		t.Fatalf("API: %d %s", r.status, r.body)
	}
	r.decode(t, &body)
	ttd := body["time_to_detect"].(map[string]any)
	for key, want := range map[string]float64{"median_seconds": 1800, "p90_seconds": 4560, "mean_seconds": 2400, "recorded": 6, "total": 7, "invalid": 1} {
		if got, ok := ttd[key].(float64); !ok || got != want {
			t.Errorf("API time_to_detect.%s = %v, want %v", key, ttd[key], want)
		}
	}
	if ack := body["time_to_acknowledge"].(map[string]any); ack["median_seconds"] != nil || ack["recorded"] != 0.0 || ack["total"] != 7.0 {
		t.Errorf("API time_to_acknowledge = %v, want null numbers, 0 of 7", ack)
	}
	check(t, "API lists", r, http.StatusOK, []string{`"slowest_detections":[{`, `"time_to_detect_seconds":6000`, `"incidents":7`, `"trend":{`, `"period":"2026-03"`}, nil)

	csvBody := a.get("/insights.csv?table=figures")
	if csvBody.status != http.StatusOK || !strings.HasPrefix(csvBody.header.Get("Content-Type"), "text/csv") {
		t.Fatalf("CSV: %d %s", csvBody.status, csvBody.header.Get("Content-Type"))
	}
	records, err := csv.NewReader(strings.NewReader(csvBody.body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(records[1][:4], ","); got != "time_to_detect,1800,4560,2400" {
		t.Errorf("CSV time_to_detect row starts %q", got)
	}
	for _, table := range []string{"histogram", "trend", "groups", "detection", "slowest", "invalid"} {
		r := a.get("/insights.csv?table=" + table)
		if r.status != http.StatusOK || strings.Count(r.body, "\n") < 2 {
			t.Errorf("CSV %s: %d %q", table, r.status, r.body)
		}
	}
	check(t, "CSV unknown table", a.get("/insights.csv?table=secrets"), http.StatusUnprocessableEntity, []string{"Must be one of"}, nil)
}

func TestInsightsFilters(t *testing.T) {
	a := newApp(t)
	fileTTDs(t, a.store, "sev1", 10, 20)       // 1 and 2 March
	fileTTDs(t, a.store, "sev3", 60, 120, 180) // 1 to 3 March as well
	apiTTD := func(query string) (float64, float64) {
		t.Helper()
		var body map[string]any
		r := a.json(http.MethodGet, "/api/v1/insights?"+query, nil)
		if r.status != http.StatusOK {
			t.Fatalf("%s: %d %s", query, r.status, r.body)
		}
		r.decode(t, &body)
		median, _ := body["time_to_detect"].(map[string]any)["median_seconds"].(float64)
		return body["incidents"].(float64), median
	}
	for _, tc := range []struct {
		query             string
		incidents, median float64
	}{
		{"", 5, 3600},
		{"severity=sev1", 2, 900},
		{"severity=sev3", 3, 7200},
		{"from=2026-03-02&to=2026-03-02", 2, 4200}, // 20 and 120 min
		{"from=2026-03-03", 1, 10800},              // the third sev3 only
		{"detection_method=unknown", 0, 0},         // every one was reported by customers
		{"service=API&region=Canada", 0, 0},        // none is in Canada
		{"service=API&interval=quarter", 5, 3600},  // the trend's interval does not filter
		{"group_by=detection_method&figure=impact", 5, 3600},
		{"factor=cold-caches", 0, 0},
	} {
		if n, median := apiTTD(tc.query); n != tc.incidents || median != tc.median {
			t.Errorf("%q: %v incidents, TTD median %v s; want %v, %v", tc.query, n, median, tc.incidents, tc.median)
		}
	}

	errorsOf := func(query string) string {
		r := a.json(http.MethodGet, "/api/v1/insights?"+query, nil)
		if r.status != http.StatusUnprocessableEntity {
			t.Errorf("%s: status %d, want 422", query, r.status)
		}
		return r.body
	}
	for query, want := range map[string]string{
		"from=12/03/2026":               `{"field":"from","message":"Not a date; write it as 2026-03-31."}`,
		"to=2026-02-30":                 `{"field":"to","message":"Not a date; write it as 2026-03-31."}`,
		"from=2026-03-05&to=2026-03-01": `{"field":"to","message":"The period ends before it starts."}`,
		"severity=sev9":                 `{"field":"severity","message":"Must be one of: sev1, sev2, sev3, sev4."}`,
		"interval=week":                 `{"field":"interval"`,
		"group_by=owner":                `{"field":"group_by"`,
		"detection_method=psychic":      `{"field":"detection_method"`,
	} {
		if body := errorsOf(query); !strings.Contains(body, want) || !strings.Contains(body, `"errors":[`) {
			t.Errorf("%s: body %s lacks %s", query, body, want)
		}
	}

	check(t, "page with a bad date", a.get("/insights?from=12%2F03%2F2026&severity=sev1"), http.StatusUnprocessableEntity, []string{
		`id="i-from-error"`, "Not a date; write it as 2026-03-31.", `value="12/03/2026"`, `aria-invalid="true"`,
		`<option value="sev1" selected>`, "These filters cannot be used.",
	}, []string{"The figures"})
	check(t, "page filtered to nothing", a.get("/insights?region=Mars"), http.StatusOK, []string{"No incident matches these filters."}, nil)
	check(t, "page by service", a.get("/insights?group_by=service&figure=time_to_resolve"), http.StatusOK, []string{
		"Time to resolve by service", "counts in each of them", `<option value="service" selected>`,
	}, nil)
	check(t, "page by quarter", a.get("/insights?interval=quarter"), http.StatusOK, []string{"Trend by quarter", "2026-Q1"}, nil)
	check(t, "page by factor", a.get("/insights?group_by=factor"), http.StatusOK, []string{
		"Time to detect by contributing factor", "No factor", `<option value="retry-amplification">Retry amplification</option>`,
	}, nil)
	check(t, "empty", newApp(t).get("/insights"), http.StatusOK, []string{"No incidents yet"}, nil)
}

// TestInsightsQueryCountIsConstant proves the insights page reads the same few statements for 5
// incidents as for 205: no per-incident queries, whether the store reads every incident's row
// (its first request) or again those of the incidents that changed since.
func TestInsightsQueryCountIsConstant(t *testing.T) {
	a := newApp(t)
	storetest.Fill(t, a.store, 5)
	few := a.statements("/insights")
	b := newApp(t)
	storetest.Fill(t, b.store, 205)
	many := b.statements("/insights")
	if few != many {
		t.Errorf("insights page: %d statements for 5 incidents, %d for 205", few, many)
	}
	storetest.Fill(t, a.store, 200)
	if changed := a.statements("/insights"); changed > few {
		t.Errorf("insights page after 200 incidents were added: %d statements, %d for the first request", changed, few)
	}
	if byService := a.statements("/insights?group_by=service"); byService > many+2 {
		t.Errorf("grouping by service runs %d statements, by severity %d", byService, many)
	}
}

func TestIncidentPicture(t *testing.T) {
	a := newApp(t)
	path := a.createIncident(seed000Form())
	a.post(path+"/windows", url.Values{"started_at": {"2026-03-11T08:00"}, "ended_at": {"2026-03-11T12:00"}, "time_zone": {"UTC"},
		"level": {"partial_outage"}, "note": {`p99 5 s <script>alert("x")</script>`}})
	a.post(path+"/events", url.Values{"at": {"2026-03-12T16:39"}, "time_zone": {"UTC"}, "kind": {"status_update"}, "status": {"investigating"},
		"public": {"true"}, "body": {"Looking into <b>slow</b> responses & timeouts."}})
	check(t, "picture", a.get(path), http.StatusOK, []string{
		`<section id="picture"`, `<svg xmlns="http://www.w3.org/2000/svg" class="picture"`, `role="img"`,
		`<title id="picture-svg-title">The incident on one time axis</title>`,
		"Undetected 72 h 54 min",                             // the detection gap, drawn through a break
		"In detail, not to scale:",                           // and the caption says so
		"To scale:</strong> the whole incident, 74 h 28 min", // beside a bar drawn to scale
		`class="phase phase-undetected"`, `class="bar level-partial_outage"`, `class="update status-investigating"`,
		"<title>Public update, 2026-03-12 16:39 UTC (investigating): Looking into &lt;b&gt;slow&lt;/b&gt; responses &amp; timeouts.</title>",
		"&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;", // the note, escaped inside the SVG title
		"The picture as a table", "Partial outage began",
	}, []string{`<script>alert`, "style="})
}

func TestMetrics(t *testing.T) {
	a := newApp(t)
	path := a.createIncident(with(seed000Form(), "status", "investigating"))
	a.post(path+"/follow-ups", url.Values{"title": {"Alert on latency"}, "kind": {"detect"}, "priority": {"p1"}, "status": {"open"}, "due_on": {"2020-01-31"}})
	a.get("/insights")
	a.get(path)
	a.get("/no/such/page")

	check(t, "anonymous", a.anonymous().get("/metrics"), http.StatusUnauthorized, nil, nil)
	token := tokenPattern.FindString(a.post("/account/tokens", url.Values{"name": {"prometheus"}}).body)
	scraper := a.anonymous()
	scraper.bearer = token
	check(t, "scrape", scraper.get("/metrics"), http.StatusOK, []string{
		`hindsight_http_requests_total{code="200",method="GET",route="/insights"} 1`,
		`hindsight_http_requests_total{code="200",method="GET",route="/incidents/:id"} 1`,
		`hindsight_http_requests_total{code="404",method="GET",route="unmatched"} 1`,
		`hindsight_http_request_duration_seconds_bucket{method="GET",route="/insights",le="+Inf"} 1`,
		`hindsight_open_incidents{severity="sev2"} 1`, `hindsight_open_incidents{severity="sev1"} 0`,
		`hindsight_overdue_follow_ups{priority="p1"} 1`, `hindsight_overdue_follow_ups{priority="p2"} 0`,
		"go_goroutines",
	}, []string{`route="/no/such/page"`})
}
