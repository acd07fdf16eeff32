package language_test

import (
	"slices"
	"strings"
	"testing"

	"hindsight/models/language"
)

// found lists a text's findings as "rule: match".
func found(text string, disabled map[string]bool) []string {
	out := []string{}
	for _, f := range language.Check(text, disabled) {
		out = append(out, f.Rule+": "+f.Match)
	}
	return out
}

// TestCheck runs sentences from real postmortems (the seeds' own among them) and their kin
// through every rule: each case lists exactly the findings it must give, so a case with none
// proves the rules leave it alone.
func TestCheck(t *testing.T) {
	const (
		cf    = language.Counterfactual + ": "
		blame = language.Blame + ": "
		why   = language.WhyQuestion + ": "
		root  = language.SingleRootCausePerson + ": "
	)
	cases := []struct {
		name string
		text string
		want []string
	}{
		// Counterfactuals, true positives.
		{"seed 000's latency alert", "Current checks detect total failures—a latency threshold alert would have caught this within the first hour.", []string{cf + "would have"}},
		{"seed 003's machines", "The unprecedented increase in demand was resulting in numerous machines being marked as sick and being taken out of rotation when they could have continued to function, albeit slowly.", []string{cf + "could have"}},
		{"should have", "The engineer should have checked the dashboard before the second deploy.", []string{cf + "should have"}},
		{"should not have", "The change should not have gone to every region at once.", []string{cf + "should not have"}},
		{"curly shouldn’t have", "We shouldn’t have trusted the cached health status.", []string{cf + "shouldn’t have"}},
		{"should’ve", "Someone should’ve paged the database team.", []string{cf + "should’ve"}},
		{"capitals", "SHOULD HAVE rolled back sooner.", []string{cf + "SHOULD HAVE"}},
		{"ought to have", "The reviewer ought to have spotted the missing flag.", []string{cf + "ought to have"}},
		{"person failed to", "The on-call engineer failed to notice the rising queue depth.", []string{cf + "failed to"}},
		{"we failed to", "We failed to warn customers in time.", []string{cf + "failed to"}},
		{"failed to escalate", "The ticket failed to escalate past the first tier because nobody owned it.", []string{cf + "failed to"}},
		{"if only", "If only the failover had been left on, the outage would have lasted minutes.", []string{cf + "If only", cf + "would have"}},
		{"had we", "Had we known the cache was cold, we would have throttled the restart.", []string{cf + "Had we", cf + "would have"}},
		{"if we had", "If we had tested the rollback, recovery would not have taken three hours.", []string{cf + "If we had", cf + "would not have"}},
		// Counterfactuals, true negatives.
		{"seed 002's workflows", "Affected customers saw automations run slowly, and some workflows failed to complete.", nil},
		{"seed 002's protections", "Normally traffic moves to a healthy server automatically, but three protections failed to do so.", nil},
		{"seed 004's users would have", "Users on the platform during this time would have experienced timeout errors, extreme slowness when navigating between areas of the platform and widgets/tables not loading fully.", nil},
		{"shoulder and could", "The shoulder of the latency curve could not be explained; we could not have known the disk was failing.", nil},
		{"failed tolerance", "The failed tolerance test on the replica set was rerun and passed.", nil},
		{"if only one region", "The router retries if only one region answers.", nil},
		{"what had they seen", "What had they seen on the dashboard at 07:54?", nil},
		{"couldn't reach", "We couldn’t reach the database for twelve minutes.", nil},
		// Blame, true positives.
		{"seed 004's human error", "Unfortunately, human error resulted in this change being deployed for all customers.", []string{blame + "human error"}},
		{"careless", "A careless edit to the gateway configuration removed the Canada route.", []string{blame + "careless"}},
		{"carelessly", "The script was carelessly run against production.", []string{blame + "carelessly"}},
		{"negligence", "This was negligence: the runbook says to drain first.", []string{blame + "negligence"}},
		{"negligent", "Calling the responders negligent helps nobody.", []string{blame + "negligent"}},
		{"did not follow", "The operator did not follow the runbook.", []string{blame + "did not follow"}},
		{"didn’t follow", "She didn’t follow the change process.", []string{blame + "didn’t follow"}},
		{"sloppy and incompetent", "Sloppy review by an incompetent team let it through.", []string{blame + "Sloppy", blame + "incompetent"}},
		{"mistake by", "It was a mistake by the release manager.", []string{blame + "mistake by the release"}},
		{"operator error", "Operator error during the failover test.", []string{blame + "Operator error"}},
		// Blame, true negatives.
		{"blameless", "This is a blameless review; the errors were user-facing 503s.", nil},
		{"careful", "The team was careful to drain the node first and followed the runbook.", nil},
		{"lazy loading", "Lazy loading of widgets hid the slow queries.", nil},
		// Why questions, true positives.
		{"why did", "Why did the engineer push the change on a Friday?", []string{why + "Why did the engineer push the change on a Friday?"}},
		{"why didn’t", "- Why didn’t anyone notice the v2.3 rollout?", []string{why + "Why didn’t anyone notice the v2.3 rollout?"}},
		{"why was", "Why was failover turned off?", []string{why + "Why was failover turned off?"}},
		// Why questions, true negatives.
		{"that is why", "That is why we added a latency alert.", nil},
		{"we do not know why", "We do not know why the cache was cold. How did the restart look at the time?", nil},
		{"how question", "How did the alert look to the person who received it?", nil},
		// A single root cause stated as a person's mistake, true positives.
		{"root cause was the engineer", "The root cause was the engineer running the migration twice.", []string{root + "root cause was the engineer"}},
		{"root cause: engineer", "Root cause: engineer pushed an untested config.", []string{root + "Root cause: engineer"}},
		{"root cause was a name", "The root cause was Dana forgetting to renew the certificate.", []string{root + "root cause was Dana forgetting"}},
		{"root cause was human error", "The root cause was human error.", []string{root + "root cause was human error", blame + "human error"}},
		{"caused by someone forgetting", "The outage was caused by someone forgetting to update the allow list.", []string{root + "caused by someone forgetting"}},
		{"caused by a developer not", "It was caused by a developer not checking the feature flag.", []string{root + "caused by a developer not checking"}},
		{"caused by a name's typo", "The outage was caused by Sam's typo in the DNS record.", []string{root + "caused by Sam's typo"}},
		// A single root cause, true negatives.
		{"root cause a race", "The root cause was a race between the cache warmer and the deploy.", nil},
		{"root cause engineering process", "The root cause was the engineering process around gateway changes.", nil},
		{"caused by a system name", "The outage was caused by Redis running out of memory.", nil},
		{"contributing factors", "Contributing factors: health checks removed slow servers; failover was off; retries had no cap.", nil},
		{"seed 001 root cause", "This issue has reoccurred for another group of customers, with a root cause similar to the this incident.", nil},
		// Markdown around the text, and code that is quoted, not written.
		{"markdown emphasis", "## Response\n\n- The team **should have** paged earlier.\n- _Human error_ let it spread.\n", []string{cf + "should have", blame + "Human error"}},
		{"markdown root cause", "**Root cause:** the on-call engineer restarted every node.", []string{root + "Root cause:** the on-call engineer"}},
		{"quoted question", "> Why did the health check remove working servers?\n", []string{why + "Why did the health check remove working servers?"}},
		{"code span", "The log said `request should have been retried` and we believed it.", nil},
		{"fenced block", "```\nERROR: human error detected, should have retried\n```\nThe log line above is the library's.", nil},
		{"identifier", "We set should_have_fallback and human_error_budget in the config.", nil},
		{"empty", "", nil},
		{"blank", "  \n\t", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := found(c.text, nil)
			want := c.want
			if want == nil {
				want = []string{}
			}
			if !slices.Equal(got, want) {
				t.Errorf("Check(%q)\n got  %q\n want %q", c.text, got, want)
			}
		})
	}
	if len(cases) < 40 {
		t.Fatalf("only %d cases", len(cases))
	}
}

// TestOffsetsAreCharacters proves Start and End count characters, not bytes: after curly quotes
// and an em dash each finding still points at its own words.
func TestOffsetsAreCharacters(t *testing.T) {
	text := "“Outage” — the engineer shouldn’t have deployed; human error. Why didn’t we see it? The root cause was the operator."
	runes := []rune(text)
	got := language.Check(text, nil)
	want := []struct {
		rule, match string
	}{
		{language.Counterfactual, "shouldn’t have"},
		{language.Blame, "human error"},
		{language.WhyQuestion, "Why didn’t we see it?"},
		{language.SingleRootCausePerson, "root cause was the operator"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d findings, want %d: %+v", len(got), len(want), got)
	}
	for n, f := range got {
		if f.Rule != want[n].rule || f.Match != want[n].match {
			t.Errorf("finding %d = %s %q, want %s %q", n, f.Rule, f.Match, want[n].rule, want[n].match)
		}
		if string(runes[f.Start:f.End]) != f.Match {
			t.Errorf("finding %d: runes[%d:%d] = %q, not its match %q", n, f.Start, f.End, string(runes[f.Start:f.End]), f.Match)
		}
		if f.Message == "" || f.Suggestion == "" {
			t.Errorf("finding %d has no message or suggestion", n)
		}
	}
	// “ ” and — are 3 bytes each: a byte offset would start later than the character offset.
	if byteStart := strings.Index(text, "shouldn"); got[0].Start == byteStart {
		t.Errorf("start %d is the byte offset, not the character offset", byteStart)
	}
}

// TestExactOffsets pins the example: "should have" at characters 13 to 24.
func TestExactOffsets(t *testing.T) {
	got := language.Check("The engineer should have checked the config; human error.", nil)
	if len(got) != 2 {
		t.Fatalf("got %+v", got)
	}
	if got[0].Rule != language.Counterfactual || got[0].Start != 13 || got[0].End != 24 {
		t.Errorf("first = %+v, want counterfactual 13–24", got[0])
	}
	if got[1].Rule != language.Blame || got[1].Start != 45 || got[1].End != 56 {
		t.Errorf("second = %+v, want blame 45–56", got[1])
	}
}

// TestDisabled proves a switched-off rule reports nothing and the others still do.
func TestDisabled(t *testing.T) {
	text := "The engineer should have checked the config; human error."
	if got := found(text, map[string]bool{language.Blame: true}); !slices.Equal(got, []string{"counterfactual: should have"}) {
		t.Errorf("blame off: %q", got)
	}
	all := map[string]bool{}
	for _, r := range language.Rules {
		all[r.ID] = true
	}
	if got := language.Check(text, all); got == nil || len(got) != 0 {
		t.Errorf("all off: %#v, want an empty list", got)
	}
}

func TestKnown(t *testing.T) {
	for _, id := range []string{"counterfactual", "blame", "why-question", "single-root-cause-person"} {
		if !language.Known(id) {
			t.Errorf("%s unknown", id)
		}
	}
	if language.Known("passive-voice") || language.Known("") {
		t.Error("an unknown rule is known")
	}
}

// TestLargeTexts: a megabyte (the API's limit) of matches, backticks or words without a full stop
// is checked in one pass; a check that read back to the sentence's start for each match, or
// searched the rest of the text for each backtick, would take minutes here.
func TestLargeTexts(t *testing.T) {
	const size = 1 << 20
	var ticks strings.Builder
	for n := 1; ticks.Len() < size; n++ {
		ticks.WriteString(strings.Repeat("`", n%1500+1) + " would have ")
	}
	for name, text := range map[string]string{
		"matches":   strings.Repeat("users would have had we if only ", size/32),
		"backticks": ticks.String(),
		"no stop":   strings.Repeat("word ", size/5) + "should have",
	} {
		got := language.Check(text, nil)
		if len(got) == 0 && name != "backticks" {
			t.Errorf("%s: no findings", name)
		}
	}
	// Spans still pair up: the second span's words are code, the words between are not.
	got := found("`a` should have ``b ` c`` could have `x", nil)
	if !slices.Equal(got, []string{"counterfactual: should have", "counterfactual: could have"}) {
		t.Errorf("spans: %q", got)
	}
	if got := found("``should have`` and `could have`", nil); len(got) != 0 {
		t.Errorf("inside spans: %q", got)
	}
}
