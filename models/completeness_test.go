package models

import (
	"slices"
	"testing"
	"time"
)

// Sentences below are from the seeds' published postmortems (/work/shared/seeds).
const (
	seed002Impact = "Between March 17, 2026 at 04:00 UTC and March 17, 2026 at 10:52 UTC, a subset of customers experienced intermittent slowness and error responses (HTTP 503) when running automation workflows."
	seed004Root   = "On the 1st of April we deployed a change which was intended to refresh the dashboard for a specific customer every two minutes. Unfortunately, human error resulted in this change being deployed for all customers."
	seed004Fix    = "The refresh feature has now been removed entirely from the platform."
)

func TestCheckCompleteness(t *testing.T) {
	at := func(h int) *time.Time { v := time.Date(2022, 4, 5, h, 0, 0, 0, time.UTC); return &v }
	due := at(0)
	complete := func() *Incident {
		return &Incident{
			Title: "R&R Platform Performance Issues", Summary: "Users of the R&R platform experienced degraded performance.",
			CustomerImpact: seed002Impact, RootCause: seed004Root, Response: seed004Fix,
			StartedAt: at(8), DetectedAt: at(9), AcknowledgedAt: at(10), MitigatedAt: at(16), ResolvedAt: at(17),
			ImpactWindows: []ImpactWindow{{StartedAt: *at(8), EndedAt: at(16), Level: "degraded"}},
			Timeline:      []TimelineEvent{{At: *at(9), Kind: "status_update", Public: true, Body: "We are investigating reports of degraded performance."}},
			FollowUps:     []FollowUp{{Title: "Remove the refresh feature", Status: "open", Owner: "Dashboard team", DueOn: due}},
			Sections: []IncidentSection{{Slug: "went_well", Heading: "What went well", Body: "Scheduled email solicitations went out as normal.", Public: true},
				{Slug: "went_wrong", Heading: "What went wrong", Body: "Our own Health Checks also began to exacerbate the problem."}},
		}
	}
	users := []User{{Email: "priya@example.com", Name: "Priya Raman"}, {Email: "ops@example.com"}}
	tests := []struct {
		name     string
		change   func(*Incident)
		template string
		want     []string // rules, in order
		field    string   // the first finding's field, when set
	}{
		{"complete under Google SRE", func(*Incident) {}, "google-sre", nil, ""},
		{"no detection time", func(i *Incident) { i.DetectedAt, i.AcknowledgedAt = nil, nil }, "", []string{RuleNoDetection}, "detected_at"},
		{"no impact window", func(i *Incident) { i.ImpactWindows = nil }, "", []string{RuleNoImpactWindow}, "impact_windows"},
		{"a near miss needs neither", func(i *Incident) {
			i.NearMiss, i.ImpactWindows, i.DetectedAt, i.AcknowledgedAt, i.StartedAt = true, nil, nil, nil, nil
		}, "", nil, ""},
		{"a near miss with an impact window", func(i *Incident) { i.NearMiss = true }, "", []string{RuleNearMissImpacted}, "near_miss"},
		{"acknowledged before detected", func(i *Incident) { i.AcknowledgedAt = at(8) }, "", []string{RuleContradiction}, "acknowledged_at"},
		{"first public update before detection", func(i *Incident) { i.Timeline[0].At = *at(8) }, "", []string{RuleContradiction}, "detected_at"},
		{"an open follow-up without owner or date", func(i *Incident) { i.FollowUps[0].Owner, i.FollowUps[0].DueOn = "", nil }, "",
			[]string{RuleFollowUpOwner, RuleFollowUpDue}, "follow_ups"},
		{"a done follow-up needs neither", func(i *Incident) {
			i.FollowUps[0].Owner, i.FollowUps[0].DueOn, i.FollowUps[0].Status = "", nil, "done"
		}, "", nil, ""},
		{"a required extra section empty", func(i *Incident) { i.Sections = i.Sections[:1] }, "google-sre", []string{RuleRequiredSection}, "section-went_wrong"},
		{"a required core section empty", func(i *Incident) { i.RootCause = "  " }, "google-sre", []string{RuleRequiredSection}, "root_cause"},
		{"an account's name in the response", func(i *Incident) { i.Response = seed004Fix + " Priya Raman rolled the change back." }, "",
			[]string{RuleInternalName}, "response"},
		{"an account's email in a status update", func(i *Incident) { i.Timeline[0].Body = "Contact ops@example.com for details." }, "",
			[]string{RuleInternalName}, "timeline"},
		{"an owner in a public section", func(i *Incident) { i.Sections[0].Body = "The dashboard team responded within minutes." }, "",
			[]string{RuleInternalName}, "section-went_well"},
		{"an owner in an internal section is fine", func(i *Incident) { i.Sections[1].Body = "The Dashboard team was paged late." }, "", nil, ""},
		{"a name inside a longer word is not a name", func(i *Incident) { i.Response = "Priya Ramanathan's team fixed it." }, "", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inc := complete()
			tt.change(inc)
			var tpl *PostmortemTemplate
			if tt.template != "" {
				tpl = BuiltinTemplate(tt.template)
			}
			got := CheckCompleteness(inc, tpl, InternalNamesOf(users, inc))
			var rules []string
			for _, f := range got {
				rules = append(rules, f.Rule)
				if f.Message == "" {
					t.Errorf("finding %s has no message", f.Rule)
				}
			}
			if !slices.Equal(rules, tt.want) {
				t.Fatalf("rules = %v, want %v (%v)", rules, tt.want, got)
			}
			if tt.field != "" && got[0].Field != tt.field {
				t.Errorf("field = %q, want %q", got[0].Field, tt.field)
			}
		})
	}
}

func TestSlugify(t *testing.T) {
	for in, want := range map[string]string{"What went well": "what_went_well", "Where we got lucky!": "where_we_got_lucky", "  Risks ": "risks", "—": ""} {
		if got := Slugify(in); got != want {
			t.Errorf("Slugify(%q) = %q, want %q", in, got, want)
		}
	}
}
