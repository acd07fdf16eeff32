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
		{name: "timeline log lines are internal notes",
			text: "# Outage - September 29, 2025\n\n## Timeline\n\n- **16:58 UTC** - Writer database saturates\n- **17:02** - Deploy goes out\n" +
				"17:05 UTC: Pods crash\n* 2025-09-29 17:12 UTC – Retries pile up\n- **17:20–17:24 UTC** - Rollback attempted\n- **23:50 UTC** - Still degraded\n- **00:10 UTC** - Service fully restored\n",
			updates:    []string{" 2025-09-29T16:58:00Z", " 2025-09-29T17:02:00Z", " 2025-09-29T17:05:00Z", " 2025-09-29T17:12:00Z", " 2025-09-29T17:20:00Z", " 2025-09-29T23:50:00Z", " 2025-09-30T00:10:00Z"},
			milestones: map[string]time.Time{"mitigated_at": utc(2025, 9, 30, 0, 10)}},
		{name: "timeline log under a dated heading, not a date in passing",
			text: "### October 28, 2025 - Pool exhaustion\n\nThe same root cause as October 21.\n\n- **19:12 UTC** - Routine deployment\n" +
				"- **22:30 UTC (Oct 29)** - Incident reported\n- **00:03 UTC (Oct 30)** - Rolled back\n- **05:39 UTC** - Incident closed\n",
			updates:    []string{" 2025-10-28T19:12:00Z", " 2025-10-29T22:30:00Z", " 2025-10-30T00:03:00Z", " 2025-10-30T05:39:00Z"},
			milestones: map[string]time.Time{"resolved_at": utc(2025, 10, 30, 5, 39)}},
		{name: "timeline table with its zone in the heading",
			text:       "**Date:** January 14-19, 2026\n\n| Time (UTC) | Event |\n|---|---|\n| Jan 14, 10:18 AM | A customer reached out to tell us checkout failed. |\n| Jan 15, 5:33 PM | A fix was released. |\n",
			zone:       la,
			updates:    []string{" 2026-01-14T10:18:00Z", " 2026-01-15T17:33:00Z"},
			milestones: map[string]time.Time{"detected_at": utc(2026, 1, 14, 10, 18)}, method: "customer_report"},
		{name: "a log of posted updates, and times in brackets",
			text: "Incident on 2025-06-03\n\n- 16:39 UTC - Investigating - We are looking into failed logins.\n[17:05 UTC] Engineers restart the pool\n" +
				"- 17:30 UTC - Resolved - This incident has been resolved.\n",
			updates:    []string{"investigating 2025-06-03T16:39:00Z", " 2025-06-03T17:05:00Z", "resolved 2025-06-03T17:30:00Z"},
			milestones: map[string]time.Time{"resolved_at": utc(2025, 6, 3, 17, 30)}},
		{name: "a log without any date gives no entries",
			text: "## Timeline\n\n- **16:58 UTC** - Writer database saturates\n- **17:02 UTC** - Deploy goes out\n"},
		{name: "a year written later fixes an earlier date, the following morning is the next day",
			text:       "# Attack (November 2025)\n\nAt 3:45 PM UTC on November 23rd, the attacker ran the workflow. At 4:11 AM UTC the following morning, packages were compromised.\n",
			milestones: map[string]time.Time{"started_at": utc(2025, 11, 24, 4, 11)}},
		{name: "a year stated only further on",
			text:       "Impact start: November 11, 4:02 PM UTC.\n\nThis review was written on November 20, 2025.\n",
			milestones: map[string]time.Time{"started_at": utc(2025, 11, 11, 16, 2)}},
		{name: "two years in the document and none with the date: no year is guessed",
			text: "Planned for Q4 2025 - Q1 2026.\n\nImpact start: November 23, 3:45 PM UTC.\nWe reviewed March 3, 2024 and January 2, 2025 incidents.\n"},
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
	f.Add("# x December 31, 9999\n- **23:50 UTC** - a\n- **00:10 UTC** - b\n| Jan 14, 10:18 AM | c |\n[16:58–17:05] d\n4:11 AM the following morning")
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
