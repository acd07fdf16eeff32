package pmparse_test

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/demo"
	"hindsight/models/pmparse"
)

// fixtures finds the folder beside the project that holds the seeds and the data; without it
// the test is skipped on a developer's machine and fails in CI.
func fixtures(t testing.TB, sub string) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", sub)
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("fixtures %s missing in CI: %v", dir, err)
		}
		t.Skipf("fixtures %s not here: %v", dir, err)
	}
	return dir
}

func read(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func seed(t testing.TB, prefix string) string {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(fixtures(t, "seeds"), prefix+"_*.txt"))
	if len(matches) != 1 {
		t.Fatalf("seed %s: found %v", prefix, matches)
	}
	return read(t, matches[0])
}

func sample(t *testing.T, key string) demo.Sample {
	for _, s := range demo.Incidents() {
		if s.Key == key {
			return s
		}
	}
	t.Fatalf("no sample %s", key)
	return demo.Sample{}
}

func utc(y int, mo time.Month, d, h, mi int) time.Time {
	return time.Date(y, mo, d, h, mi, 0, 0, time.UTC)
}

// checkAll checks what every draft must be: instants in range and in UTC, evidence for each
// suggestion, and each evidence's words really in the text.
func checkAll(t *testing.T, text string, d pmparse.Draft) {
	t.Helper()
	flat := strings.Join(strings.Fields(strings.NewReplacer("**", "", `\(`, "(", `\)`, ")").Replace(text)), " ")
	for field, at := range d.Incident.Milestones {
		if !models.InstantInRange(at) || at.Location() != time.UTC {
			t.Errorf("%s = %v: out of range or not UTC", field, at)
		}
		words := d.Evidence[field]
		if words == "" {
			t.Errorf("%s has no evidence", field)
		}
		for _, part := range strings.Split(words, " … ") {
			if !strings.Contains(flat, part) {
				t.Errorf("%s evidence %q is not in the text", field, part)
			}
		}
	}
	for field, alts := range d.Alternatives {
		for _, a := range alts {
			if !models.InstantInRange(a.At) || a.At.Equal(d.Incident.Milestones[field]) {
				t.Errorf("%s alternative %v out of range or the same as the reading", field, a.At)
			}
		}
	}
	for n, e := range d.Incident.Timeline {
		if !models.InstantInRange(e.At) {
			t.Errorf("timeline[%d] out of range", n)
		}
		in := models.EventInput{At: e.At, Kind: e.Kind, Status: e.Status, Body: e.Body, Public: e.Public}
		if errs := models.Validate(in); len(errs) > 0 {
			t.Errorf("timeline[%d] %+v invalid: %v", n, e, errs)
		}
	}
	for n, f := range d.Incident.FollowUps {
		if f.Title == "" || len(f.Title) > models.TitleMax {
			t.Errorf("follow_ups[%d] title %q", n, f.Title)
		}
	}
	if len(d.Incident.Title) > models.TitleMax || len(d.Incident.Summary) > 5000 {
		t.Errorf("title or summary too long")
	}
}

// TestSeeds reads each seed and compares with the sample incidents typed by hand in models/demo,
// where the sample's value is one the text states.
func TestSeeds(t *testing.T) {
	type want struct {
		seed, sample    string
		title           string
		milestones      []string // the sample's milestones the text states
		absent          []string // milestones the text does not state
		extra           map[string]time.Time
		days            []string // the milestones read only to the day
		alternatives    map[string][]time.Time
		updates         int // status updates, compared with the sample's
		followUps       []string
		detectionMethod string
		sections        []string
	}
	cases := []want{
		{seed: "000", sample: "seed-000", title: "Canada - Multiple Services - Degraded Performance",
			milestones: []string{"started_at", "detected_at", "mitigated_at", "resolved_at"},
			absent:     []string{"triggered_at", "acknowledged_at"},
			updates:    6,
			followUps: []string{
				"Add a cache connectivity check to the routing service startup",
				"Increase the minimum compute capacity",
				"Add latency-based synthetic monitoring for the Canada region",
				"Audit all regional gateway clusters",
				"Add anomaly-detection-based alerts for service restarts, replica set creation",
			},
			detectionMethod: "customer_report",
			sections:        []string{"customer_impact", "root_cause", "detection", "response"}},
		{seed: "001", sample: "seed-001", title: "Multiple Services Inaccessible in Europe Region",
			// "detected within 20 minutes" of 05:45; the sample's resolved_at is not stated.
			milestones:      []string{"started_at", "detected_at", "mitigated_at"},
			absent:          []string{"triggered_at", "acknowledged_at", "resolved_at"},
			detectionMethod: "automated_alert",
			sections:        []string{"customer_impact", "root_cause", "detection", "response"}},
		{seed: "002", sample: "seed-002",
			milestones: []string{"started_at", "detected_at", "mitigated_at", "resolved_at"},
			absent:     []string{"triggered_at"},
			// "detected at 07:54 … and an incident was declared immediately".
			extra:        map[string]time.Time{"acknowledged_at": utc(2026, time.March, 17, 7, 54)},
			alternatives: map[string][]time.Time{"mitigated_at": {utc(2026, time.March, 17, 10, 52)}},
			followUps: []string{
				"The timeout for permission-check requests has been increased so that transient routing delays no longer cause workflow failures",
				"Capacity benchmarking of the authorization service, with traffic limits applied at the routing layer so that no single instance can be overwhelmed by concurrent requests",
				"Tighter timeouts in the authorization service's routing configuration, so a slow instance fails fast and traffic moves to a healthy one instead of queueing",
				"A startup health check on the authorization service, so an instance is only sent traffic once it is genuinely ready to serve it",
				"Investigation into the recurring hourly traffic surges that preceded the degradation, to establish their origin and remove them as a trigger",
			},
			detectionMethod: "automated_alert",
			sections:        []string{"customer_impact", "root_cause", "detection", "response"}},
		{seed: "003", sample: "seed-003",
			milestones: []string{"started_at", "mitigated_at", "resolved_at"},
			// No detection time was ever published: it stays empty.
			absent:       []string{"triggered_at", "detected_at", "acknowledged_at"},
			alternatives: map[string][]time.Time{"resolved_at": {utc(2022, time.August, 15, 22, 42)}},
			updates:      3,
			followUps: []string{
				"To prevent this issue from occurring again, our engineering team has implemented a stricter deployment process that more accurately tests real-world usage and uses new preventative checks before…",
				"Our team has also adjusted the default scaling parameters to ensure that our infrastructure stays above what is required to handle incoming workloads, even under degraded conditions",
				"Finally, our team has increased the number of alertable metrics to help track down potential issues before they land in production or as soon as initial issues arise so related changes can be…",
			},
			sections: []string{"customer_impact", "root_cause", "response"}},
		{seed: "004", sample: "seed-004", title: "Rant & Rave: RCA - 2022/4/5 - Platform outage and instability - 32.5hrs",
			// In BST; the trigger ("On the 1st of April we deployed a change") is known only to
			// the day: read as that day, marked so.
			milestones: []string{"started_at", "mitigated_at", "resolved_at"},
			extra:      map[string]time.Time{"triggered_at": time.Date(2022, 4, 1, 0, 0, 0, 0, time.UTC)},
			days:       []string{"triggered_at"},
			absent:     []string{"detected_at", "acknowledged_at"},
			followUps: []string{
				"The refresh feature has now been removed entirely from the platform",
				"Our health checks have been optimized so that we have more control over the flagging and removing of sick machines",
				"Additional monitoring and reporting tools have been put in place so that we can pre-emptively resolve potential issues like this in the future before they have an impact on customers",
				"We do not believe that an increase in capacity is needed but we are implementing processes to enable us to more quickly increase capacity in the future if the need did arise",
				"While there is no mechanism in place that would allow us to capture API calls that have timed out we believe the changes made above should ensure that this is not needed in future",
			},
			sections: []string{"summary", "root_cause"}},
	}
	for _, c := range cases {
		t.Run(c.seed, func(t *testing.T) {
			text := seed(t, c.seed)
			d, err := pmparse.Parse(text, time.UTC)
			if err != nil {
				t.Fatal(err)
			}
			checkAll(t, text, d)
			s := sample(t, c.sample)
			inc := d.Incident
			if inc.Title != c.title {
				t.Errorf("title = %q, want %q", inc.Title, c.title)
			}
			typed := map[string]*time.Time{}
			for n, name := range models.MilestoneNames {
				typed[name] = s.Incident.Milestones.List()[n]
			}
			for _, name := range c.milestones {
				got, ok := inc.Milestones[name]
				if !ok || !got.Equal(*typed[name]) {
					t.Errorf("%s = %v (%v), want the sample's %v", name, got, ok, typed[name].UTC())
				}
			}
			for name, at := range c.extra {
				if got := inc.Milestones[name]; !got.Equal(at) {
					t.Errorf("%s = %v, want %v", name, got, at)
				}
			}
			if !slices.Equal(inc.MilestoneDays, c.days) {
				t.Errorf("milestones known only to the day = %v, want %v", inc.MilestoneDays, c.days)
			}
			for _, name := range c.absent {
				if got, ok := inc.Milestones[name]; ok {
					t.Errorf("%s = %v, but the text does not state it (%q)", name, got, d.Evidence[name])
				}
			}
			for name, want := range c.alternatives {
				alts := d.Alternatives[name]
				if len(alts) != len(want) {
					t.Fatalf("%s alternatives = %v, want %v", name, alts, want)
				}
				for n := range want {
					if !alts[n].At.Equal(want[n]) {
						t.Errorf("%s alternative %d = %v, want %v", name, n, alts[n].At, want[n])
					}
				}
			}
			// Every status update the sample holds, with its status and time.
			var updates []pmparse.Entry
			for _, e := range inc.Timeline {
				if e.Kind == "status_update" {
					updates = append(updates, e)
				}
			}
			var typedUpdates []models.EventInput
			if s.Children.Timeline != nil {
				for _, e := range *s.Children.Timeline {
					if e.Kind == "status_update" {
						typedUpdates = append(typedUpdates, e)
					}
				}
			}
			if len(updates) != c.updates || len(typedUpdates) != c.updates {
				t.Fatalf("%d status updates, sample %d, want %d: %+v", len(updates), len(typedUpdates), c.updates, updates)
			}
			for n, e := range updates {
				w := typedUpdates[n]
				if !e.At.Equal(w.At) || e.Status != w.Status || !e.Public || e.Body == "" {
					t.Errorf("update %d = %v %s public=%v, want %v %s", n, e.At, e.Status, e.Public, w.At, w.Status)
				}
			}
			if len(inc.FollowUps) != len(c.followUps) {
				t.Fatalf("%d follow-ups, want %d: %+v", len(inc.FollowUps), len(c.followUps), inc.FollowUps)
			}
			for n, f := range inc.FollowUps {
				if f.Title != c.followUps[n] {
					t.Errorf("follow-up %d = %q, want %q", n, f.Title, c.followUps[n])
				}
				if d.Evidence["follow_ups["+strconv.Itoa(n)+"]"] == "" {
					t.Errorf("follow-up %d has no evidence", n)
				}
			}
			if inc.DetectionMethod != c.detectionMethod {
				t.Errorf("detection_method = %q, want %q (%q)", inc.DetectionMethod, c.detectionMethod, d.Evidence["detection_method"])
			}
			got := map[string]string{"summary": inc.Summary, "customer_impact": inc.CustomerImpact, "root_cause": inc.RootCause,
				"trigger": inc.Trigger, "detection": inc.Detection, "response": inc.Response, "lessons": inc.Lessons}
			for _, name := range c.sections {
				if got[name] == "" || d.Evidence[name] == "" {
					t.Errorf("section %s empty or without evidence", name)
				}
				delete(got, name)
			}
			for name, text := range got {
				if text != "" {
					t.Errorf("section %s = %.60q, but the text has no such section", name, text)
				}
			}
		})
	}
}

// TestSeed000Sections checks that the one-line postmortem block of seed 000 is cut at its
// headings and that its list of follow-ups does not leak into the response.
func TestSeed000Sections(t *testing.T) {
	d, err := pmparse.Parse(seed(t, "000"), time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	inc := d.Incident
	if !strings.HasPrefix(inc.CustomerImpact, "Customers in the **Canada region** experienced") {
		t.Errorf("customer_impact starts %.60q", inc.CustomerImpact)
	}
	if strings.Contains(inc.Response, "cache connectivity") || strings.Contains(inc.CustomerImpact, "## Root Cause") {
		t.Errorf("sections run into each other: %q", inc.Response)
	}
	if !strings.Contains(inc.CustomerImpact, "* Impact start: ~March 9, 2026 16:00 UTC") &&
		!strings.Contains(inc.CustomerImpact, "* **Impact start**: ~March 9, 2026 16:00 UTC") {
		t.Errorf("the impact list is not kept on its own lines: %q", inc.CustomerImpact)
	}
	if got := d.Evidence["started_at"]; got != "Impact start: ~March 9, 2026 16:00 UTC" {
		t.Errorf("started_at evidence %q", got)
	}
	if inc.Status != "resolved" {
		t.Errorf("status = %q", inc.Status)
	}
	last := inc.Timeline[len(inc.Timeline)-1]
	if last.Kind != "note" || !last.At.Equal(utc(2026, time.March, 16, 7, 6)) || last.Public { // a note is internal
		t.Errorf("the postmortem block = %+v", last)
	}
}

// TestPostHog reads the PostHog postmortems: each stated window and the follow-ups under
// Remediation.
func TestPostHog(t *testing.T) {
	dir := fixtures(t, filepath.Join("data", "postmortems"))
	cases := []struct {
		file               string
		started, mitigated time.Time
		minFollowUps       int
		firstFollowUp      string
		detectionMethod    string
	}{
		{"2025-09-29-flags-is-down.md", utc(2025, 9, 29, 16, 58), utc(2025, 9, 29, 18, 46), 9, "Database connection timeouts moved to runtime configuration", ""},
		{"2025-10-03-surveys-sdk-bug.md", utc(2025, 10, 3, 10, 45), utc(2025, 10, 3, 16, 11), 9, "Reverted the backwards-incompatible changes and released version 1.270.1", "customer_report"},
		{"2025-10-21-feature-flags-recurring-outages.md", utc(2025, 10, 21, 21, 45), utc(2025, 10, 21, 23, 28), 20, "Configuration externalization", "automated_alert"},
		{"2025-11-15-persons-db-migration.md", utc(2025, 11, 11, 16, 2), utc(2025, 11, 15, 6, 20), 11, "Root cause discovery and isolation", ""},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			text := read(t, filepath.Join(dir, c.file))
			d, err := pmparse.Parse(text, time.UTC)
			if err != nil {
				t.Fatal(err)
			}
			checkAll(t, text, d)
			inc := d.Incident
			if !strings.HasPrefix(inc.Title, "PostHog ") {
				t.Errorf("title = %q", inc.Title)
			}
			if got, ok := inc.Milestones["started_at"]; ok != !c.started.IsZero() || !got.Equal(c.started) {
				t.Errorf("started_at = %v, want %v", got, c.started)
			}
			if got := inc.Milestones["mitigated_at"]; !got.Equal(c.mitigated) {
				t.Errorf("mitigated_at = %v, want %v", got, c.mitigated)
			}
			if len(inc.FollowUps) < c.minFollowUps {
				t.Errorf("%d follow-ups, want at least %d", len(inc.FollowUps), c.minFollowUps)
			}
			if c.firstFollowUp != "" && inc.FollowUps[0].Title != c.firstFollowUp {
				t.Errorf("first follow-up = %q", inc.FollowUps[0].Title)
			}
			for _, f := range inc.FollowUps {
				if !strings.ContainsFunc(f.Title, func(r rune) bool { return r >= 'A' && r <= 'z' }) || strings.HasPrefix(f.Title, "http") {
					t.Errorf("follow-up %q is not an action", f.Title)
				}
			}
			if inc.DetectionMethod != c.detectionMethod {
				t.Errorf("detection_method = %q, want %q", inc.DetectionMethod, c.detectionMethod)
			}
			if inc.Lessons == "" || inc.RootCause == "" {
				t.Errorf("lessons or root cause missing")
			}
		})
	}
}

func modelsInRange(t time.Time) bool { return models.InstantInRange(t) }
