package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hindsight/handlers"
	"hindsight/models"
	"hindsight/models/storetest"
)

// requireBinary finds a program the test needs; without it the test is skipped, unless the
// environment says real programs are required (CI), when it fails.
func requireBinary(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	if os.Getenv("HINDSIGHT_REQUIRE_BROWSER") != "" {
		t.Fatalf("%s is not installed and HINDSIGHT_REQUIRE_BROWSER is set: %v", name, err)
	}
	t.Skipf("%s is not installed", name)
	return ""
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startProgram runs a program until the test ends, its output in the test log on failure.
func startProgram(t *testing.T, path string, args ...string) {
	t.Helper()
	cmd := exec.Command(path, args...)
	logFile, err := os.Create(filepath.Join(t.TempDir(), filepath.Base(path)+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			out, _ := os.ReadFile(logFile.Name())
			t.Logf("%s output (last 3000 bytes):\n%s", filepath.Base(path), tail(string(out), 3000))
		}
		logFile.Close()
	})
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, deadline time.Duration, cond func() bool) {
	t.Helper()
	stop := time.After(deadline)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-stop:
			t.Fatalf("waited %s for %s", deadline, what)
		case <-tick.C:
		}
	}
}

const firingRule = `groups:
- name: hindsight
  interval: 1s
  rules:
  - alert: CheckoutErrors
    expr: vector(1) > 0
    for: 0s
    labels: {severity: critical, service: checkout}
    annotations: {summary: "Checkout answers 5xx"}
`

// TestPrometheusAlertmanagerOpenIncident runs Debian's Prometheus and Alertmanager on loopback:
// a rule that fires reaches Hindsight through Alertmanager's webhook with a bearer secret and
// opens an incident whose impact start is the alert's startsAt; the rule is then reloaded so it
// no longer fires, and the resolution suggests the mitigation.
func TestPrometheusAlertmanagerOpenIncident(t *testing.T) {
	prometheus := requireBinary(t, "prometheus")
	alertmanager := requireBinary(t, "prometheus-alertmanager")
	s := storetest.SQLite(t)
	a := serverOn(t, s)
	hindsight := httptest.NewServer(a.e)
	defer hindsight.Close()
	secret, integ := newIntegration(t, s, models.IntegrationInput{Kind: models.IntegrationAlertmanager, Name: "prometheus-test"})

	dir := t.TempDir()
	amPort, promPort := freePort(t), freePort(t)
	amConfig := fmt.Sprintf(`global:
  resolve_timeout: 5s
route:
  receiver: hindsight
  group_by: [alertname]
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
receivers:
- name: hindsight
  webhook_configs:
  - url: %s%s
    send_resolved: true
    http_config:
      authorization:
        type: Bearer
        credentials: %s
`, hindsight.URL, handlers.AlertReceiverPath(integ.ID), secret)
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	startProgram(t, alertmanager,
		"--config.file="+write("alertmanager.yml", amConfig),
		"--storage.path="+filepath.Join(dir, "am-data"),
		fmt.Sprintf("--web.listen-address=127.0.0.1:%d", amPort),
		"--cluster.listen-address=")
	rules := write("rules.yml", firingRule)
	promConfig := fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
alerting:
  alertmanagers:
  - static_configs:
    - targets: ['127.0.0.1:%d']
rule_files: [%s]
`, amPort, rules)
	startProgram(t, prometheus,
		"--config.file="+write("prometheus.yml", promConfig),
		"--storage.tsdb.path="+filepath.Join(dir, "prom-data"),
		fmt.Sprintf("--web.listen-address=127.0.0.1:%d", promPort),
		"--web.enable-lifecycle",
		// Alerts, and their resolution, go to Alertmanager each second, not each minute.
		"--rules.alert.resend-delay=1s")
	began := time.Now()

	ctx := context.Background()
	var inc *models.Incident
	waitFor(t, "the alert to open an incident", 90*time.Second, func() bool {
		list, _, err := s.ListIncidents(ctx, models.IncidentFilter{})
		if err != nil || len(list) == 0 {
			return false
		}
		inc, err = s.GetIncident(ctx, list[0].ID)
		return err == nil
	})
	t.Logf("incident opened after %s", time.Since(began).Round(time.Second))
	// Alertmanager's own view of the alert says when it started.
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/api/v2/alerts", amPort))
	if err != nil {
		t.Fatal(err)
	}
	var alerts []struct {
		StartsAt time.Time         `json:"startsAt"`
		Labels   map[string]string `json:"labels"`
	}
	err = json.NewDecoder(resp.Body).Decode(&alerts)
	resp.Body.Close()
	if err != nil || len(alerts) != 1 {
		t.Fatalf("alertmanager's alerts: %+v, %v", alerts, err)
	}
	startsAt := alerts[0].StartsAt.UTC().Truncate(time.Second)
	if inc.StartedAt == nil || !inc.StartedAt.Equal(startsAt) {
		t.Errorf("impact start %v, want the alert's startsAt %v", inc.StartedAt, startsAt)
	}
	if inc.Title != "CheckoutErrors" || inc.Severity != "sev1" || inc.DetectedAt == nil || inc.MitigatedAt != nil {
		t.Errorf("incident opened as %q %s detected %v mitigated %v", inc.Title, inc.Severity, inc.DetectedAt, inc.MitigatedAt)
	}
	if src := inc.MilestoneSources["started_at"]; src.Kind != models.SourceAlert || !strings.Contains(src.Detail, "prometheus-test") {
		t.Errorf("impact start source %+v", src)
	}

	// The rule stops firing: Prometheus resolves the alert, Alertmanager says so.
	write("rules.yml", strings.Replace(firingRule, "vector(1) > 0", "vector(1) < 0", 1))
	reload, err := http.Post(fmt.Sprintf("http://127.0.0.1:%d/-/reload", promPort), "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	reload.Body.Close()
	if reload.StatusCode != http.StatusOK {
		t.Fatalf("reload: %s", reload.Status)
	}
	waitFor(t, "the resolution to suggest the mitigation", 90*time.Second, func() bool {
		inc, err = s.GetIncident(ctx, inc.ID)
		return err == nil && inc.MitigatedAt != nil
	})
	t.Logf("mitigation suggested after %s", time.Since(began).Round(time.Second))
	if src := inc.MilestoneSources["mitigated_at"]; src.Kind != models.SourceAlert {
		t.Errorf("mitigation source %+v", src)
	}
	if inc.MitigatedAt.Before(*inc.StartedAt) {
		t.Errorf("mitigated %v before the start %v", inc.MitigatedAt, inc.StartedAt)
	}
	var firing, resolved int
	for _, ev := range inc.Timeline {
		if ev.Kind == "alert" && !ev.Public {
			switch {
			case strings.HasPrefix(ev.Body, "**FIRING**"):
				firing++
			case strings.HasPrefix(ev.Body, "**RESOLVED**"):
				resolved++
			}
		}
	}
	if firing != 1 || resolved != 1 {
		t.Errorf("timeline has %d firing and %d resolved alert entries, want 1 and 1", firing, resolved)
	}
	if n := incidentCount(t, s); n != 1 {
		t.Errorf("%d incidents, want 1", n)
	}
}
