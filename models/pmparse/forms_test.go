package pmparse_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"hindsight/models/pmparse"
)

// TestForms covers one input form each: how status pages and documents write times and updates.
func TestForms(t *testing.T) {
	la, _ := time.LoadLocation("America/Los_Angeles")
	cases := []struct {
		name       string
		text       string
		zone       *time.Location
		milestones map[string]time.Time
		alts       map[string][]time.Time
		updates    []string // "status RFC3339"
		followUps  []string
		method     string
		title      string
		section    [2]string // a section and how its text starts
	}{
		{name: "statuspage page text",
			text: "Elevated errors on API\nResolved\nThis incident has been resolved.\nPosted 3 days ago. Mar 12, 2026 - 18:28 UTC\n" +
				"Monitoring\nA fix has been implemented and we are monitoring the results.\nPosted 3 days ago. Mar 12, 2026 - 18:11 UTC\n" +
				"Investigating\nWe are investigating elevated errors.\nPosted 3 days ago. Mar 12, 2026 - 16:39 UTC\n",
			title:      "Elevated errors on API",
			updates:    []string{"resolved 2026-03-12T18:28:00Z", "monitoring 2026-03-12T18:11:00Z", "investigating 2026-03-12T16:39:00Z"},
			milestones: map[string]time.Time{"resolved_at": utc(2026, 3, 12, 18, 28)}},
		{name: "statuspage history with dash",
			text:       "Resolved - This incident has been resolved.\nMar 12, 2026 - 18:28 UTC\nInvestigating - We are looking into it.\nMar 12, 2026 - 16:39 UTC\n",
			updates:    []string{"resolved 2026-03-12T18:28:00Z", "investigating 2026-03-12T16:39:00Z"},
			milestones: map[string]time.Time{"resolved_at": utc(2026, 3, 12, 18, 28)}},
		{name: "google cloud rows",
			text:       "Date\tTime\tDescription\n12 Mar 2026\t10:39 PDT\tWe are investigating an issue with Cloud Storage.\n12 Mar 2026\t11:52 PDT\tThe issue with Cloud Storage has been resolved for all affected users.\n",
			updates:    []string{"investigating 2026-03-12T17:39:00Z", "resolved 2026-03-12T18:52:00Z"},
			milestones: map[string]time.Time{"resolved_at": utc(2026, 3, 12, 18, 52)}},
		{name: "cstate front matter",
			text:       "---\ntitle: ci.jenkins.io is down\ndate: 2024-02-07T14:40:00-00:00\nresolved: true\nresolvedWhen: 2024-02-07T15:20:00-00:00\n---\n\nThe controller is up again.\n",
			title:      "ci.jenkins.io is down",
			milestones: map[string]time.Time{"started_at": utc(2024, 2, 7, 14, 40), "resolved_at": utc(2024, 2, 7, 15, 20)}},
		{name: "range in PDT",
			text:       "On June 3, 2025 from 10:22 to 10:52 PDT, requests to the API failed.",
			milestones: map[string]time.Time{"started_at": utc(2025, 6, 3, 17, 22), "mitigated_at": utc(2025, 6, 3, 17, 52)}},
		{name: "window over midnight with dates after",
			text:       "Between 20:48 UTC on 20 February 2018 and 00:02 UTC on 21 February 2018, builds were delayed.",
			milestones: map[string]time.Time{"started_at": utc(2018, 2, 20, 20, 48), "mitigated_at": utc(2018, 2, 21, 0, 2)}},
		{name: "window over midnight without dates",
			text:       "On March 3, 2026 between 23:30 and 00:15 UTC, logins failed.",
			milestones: map[string]time.Time{"started_at": utc(2026, 3, 3, 23, 30), "mitigated_at": utc(2026, 3, 4, 0, 15)}},
		{name: "window whose end is before its start is not read",
			text: "On November 11, 2025: degraded ingestion, 16:02 UTC -- 15:02 UTC."},
		{name: "window with dates at both ends, double hyphen",
			text:       "Degraded ingestion: November 11, 2025, 16:02 UTC -- November 14, 15:02 UTC.",
			milestones: map[string]time.Time{"started_at": utc(2025, 11, 11, 16, 2), "mitigated_at": utc(2025, 11, 14, 15, 2)}},
		{name: "window with a date after each end",
			text:       "Duration: 22:30 UTC on October 29, 2025 to 05:39 UTC on October 30 (7 hours 9 minutes).",
			milestones: map[string]time.Time{"started_at": utc(2025, 10, 29, 22, 30), "mitigated_at": utc(2025, 10, 30, 5, 39)}},
		{name: "PST in summer has two readings",
			text:       "Impact start: July 1, 2025 9:00 PST",
			milestones: map[string]time.Time{"started_at": time.Date(2025, 7, 1, 9, 0, 0, 0, la).UTC()},
			alts:       map[string][]time.Time{"started_at": {utc(2025, 7, 1, 17, 0)}}},
		{name: "numeric offset and IANA name",
			text:       "Impact start: 2025-11-02 09:30 +05:30\nThe incident was marked resolved at 11:00 Europe/Berlin on 2025-11-02.",
			milestones: map[string]time.Time{"started_at": utc(2025, 11, 2, 4, 0), "resolved_at": utc(2025, 11, 2, 10, 0)}},
		{name: "zone of the caller for times without one",
			text:       "Impact start: March 3, 2026 09:00",
			zone:       la,
			milestones: map[string]time.Time{"started_at": utc(2026, 3, 3, 17, 0)}},
		{name: "all times in UTC",
			text:       "All times in UTC.\n\nStarted at 09:00 on May 4, 2025. Detected at 09:12. Service was restored at 10:00.",
			zone:       la,
			milestones: map[string]time.Time{"started_at": utc(2025, 5, 4, 9, 0), "detected_at": utc(2025, 5, 4, 9, 12), "mitigated_at": utc(2025, 5, 4, 10, 0)}},
		{name: "label lead-ins and action items",
			text:      "Summary: The queue stalled.\nRoot cause: A bad config push.\nLessons learned: Review pushes.\n\nAction items\n- [ ] Add a config linter\n- [x] Page on queue depth\n",
			followUps: []string{"Add a config linter", "Page on queue depth"},
			section:   [2]string{"root_cause", "A bad config push."}},
		{name: "synthetic checks",
			text:   "Detection\nThe outage was detected by our synthetic checks at 10:05 UTC on April 2, 2025.",
			method: "synthetic_monitor", milestones: map[string]time.Time{"detected_at": utc(2025, 4, 2, 10, 5)}},
		{name: "nothing stated stays empty",
			text:  "Some services were slow for a while last week. We fixed it.",
			title: "Some services were slow for a while last week. We fixed it"[:0]},
		{name: "a date that does not exist is not read",
			text: "Impact start: February 30, 2026 10:00 UTC"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := pmparse.Parse(c.text, c.zone)
			if err != nil {
				t.Fatal(err)
			}
			checkAll(t, c.text, d)
			inc := d.Incident
			if len(inc.Milestones) != len(c.milestones) {
				t.Errorf("milestones = %v, want %v", inc.Milestones, c.milestones)
			}
			for name, want := range c.milestones {
				if got := inc.Milestones[name]; !got.Equal(want) {
					t.Errorf("%s = %v, want %v (%q)", name, got, want, d.Evidence[name])
				}
			}
			for name, want := range c.alts {
				alts := d.Alternatives[name]
				if len(alts) != len(want) || !alts[0].At.Equal(want[0]) {
					t.Errorf("%s alternatives = %v, want %v", name, alts, want)
				}
			}
			var updates []string
			for _, e := range inc.Timeline {
				updates = append(updates, e.Status+" "+e.At.Format(time.RFC3339))
			}
			if strings.Join(updates, ",") != strings.Join(c.updates, ",") {
				t.Errorf("updates = %v, want %v", updates, c.updates)
			}
			var followUps []string
			for _, f := range inc.FollowUps {
				followUps = append(followUps, f.Title)
			}
			if strings.Join(followUps, ",") != strings.Join(c.followUps, ",") {
				t.Errorf("follow-ups = %q, want %q", followUps, c.followUps)
			}
			if inc.DetectionMethod != c.method {
				t.Errorf("detection_method = %q, want %q", inc.DetectionMethod, c.method)
			}
			if c.title != "" && inc.Title != c.title {
				t.Errorf("title = %q, want %q", inc.Title, c.title)
			}
			if c.section[0] == "root_cause" && inc.RootCause != c.section[1] {
				t.Errorf("root_cause = %q", inc.RootCause)
			}
		})
	}
}

func TestEmpty(t *testing.T) {
	if _, err := pmparse.Parse(" \n\t", time.UTC); !errors.Is(err, pmparse.ErrEmpty) {
		t.Errorf("err = %v, want ErrEmpty", err)
	}
}

// FuzzParse: any text gives a draft whose instants can be kept, and never a panic.
func FuzzParse(f *testing.F) {
	f.Add("Impact start: 2025-11-02 09:30 +05:30 to 10:00")
	f.Add("Between 05:45–08:45 UTC on November 05, 2025\nResolved\nPosted. Mar 12, 9999 - 23:59 UTC")
	f.Add("## Follow-up\n1. **x** y\n* ✅\nDetected within 999 hours")
	f.Fuzz(func(t *testing.T, text string) {
		d, err := pmparse.Parse(text, time.UTC)
		if err != nil {
			return
		}
		for field, at := range d.Incident.Milestones {
			if !modelsInRange(at) {
				t.Fatalf("%s = %v out of range", field, at)
			}
		}
		for _, e := range d.Incident.Timeline {
			if !modelsInRange(e.At) {
				t.Fatalf("entry at %v out of range", e.At)
			}
		}
	})
}
