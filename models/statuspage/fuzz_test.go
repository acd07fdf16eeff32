package statuspage_test

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"hindsight/models/importer"
	"hindsight/models/statuspage"
)

// FuzzParse feeds the reader arbitrary bytes, seeded with each real GitHub incident of the
// excerpt and with the shapes the format allows. Whatever comes in, it must not panic, and a
// record it calls valid must hold only what the store accepts.
func FuzzParse(f *testing.F) {
	data, err := os.ReadFile(excerpt)
	if err != nil {
		f.Fatal(err)
	}
	var doc struct {
		Page      json.RawMessage   `json:"page"`
		Incidents []json.RawMessage `json:"incidents"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		f.Fatal(err)
	}
	// Small seeds keep the fuzzer fast, minimising above all: each real incident keeps its shape
	// and traps but at most three updates, three components and short bodies.
	for n, inc := range doc.Incidents {
		doc.Incidents[n] = shrink(f, inc)
		f.Add([]byte(doc.Incidents[n]))
	}
	f.Add([]byte(`{"page":` + string(doc.Page) + `,"incidents":[` + string(doc.Incidents[1]) + `,` + string(doc.Incidents[2]) + `]}`))
	f.Add([]byte(`[` + string(doc.Incidents[3]) + `]`))
	f.Add([]byte(`{"page":{"time_zone":"Europe/Paris"},"scheduled_maintenances":[{"id":"m","name":"Upgrade","status":"scheduled","impact":"maintenance","scheduled_for":"2024-01-03T00:00:00Z","incident_updates":[]}]}`))
	f.Add([]byte(`{"id":"p","name":"Write-up","status":"postmortem","impact":"major","created_at":"2024-01-02T10:00:00Z","postmortem_body":"<p>Why <a href=\"javascript:x\">it</a></p>","incident_updates":[{"status":"postmortem","body":"<ul><li>x</li></ul>","created_at":"2024-01-05T12:00:00Z"}]}`))
	f.Add([]byte(`{"id":"n","name":"Negative","status":"resolved","impact":"minor","created_at":"2020-04-08T13:30:00.000Z","started_at":"2020-04-09T14:34:29.489Z","resolved_at":"2020-04-08T13:30:00.000Z","incident_updates":[{"status":"resolved","body":"","created_at":"2020-04-08T13:30:00Z","affected_components":[{"name":"API","old_status":"operational","new_status":"major_outage"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, include := range []bool{false, true} {
			records, err := statuspage.Parse(data, "fuzz.json", statuspage.ParseOptions{IncludeMaintenance: include})
			if err != nil {
				continue
			}
			for _, r := range records {
				_ = r.Name()
				errs := importer.Check(r)
				if r.Skip != "" || len(errs) > 0 {
					continue
				}
				if m := r.Maintenance; m != nil {
					// A valid maintenance has a schedule that ends no earlier than it starts.
					if m.Input.ScheduledFor.IsZero() || m.Input.ScheduledUntil.Before(m.Input.ScheduledFor) || len(m.Updates) == 0 {
						t.Fatalf("%s: a valid maintenance with a bad schedule or no update: %+v", r.Name(), m)
					}
					continue
				}
				for _, w := range *r.Children.ImpactWindows {
					if w.EndedAt != nil && w.EndedAt.Before(w.StartedAt) {
						t.Fatalf("%s: a valid record has a window ending before it starts", r.Name())
					}
				}
			}
		}
	})
}

// shrink cuts a real incident down to a small seed.
func shrink(f *testing.F, raw json.RawMessage) json.RawMessage {
	var inc map[string]any
	if err := json.Unmarshal(raw, &inc); err != nil {
		f.Fatal(err)
	}
	cut := func(key string, limit int) []any {
		list, _ := inc[key].([]any)
		if len(list) > limit {
			list = list[len(list)-limit:] // the oldest, which open the incident
		}
		return list
	}
	updates := cut("incident_updates", 3)
	for _, u := range updates {
		update := u.(map[string]any)
		if body, _ := update["body"].(string); len(body) > 200 {
			update["body"] = body[:200]
		}
		delete(update, "custom_tweet")
		delete(update, "tweet_id")
	}
	inc["incident_updates"] = updates
	components := cut("components", 3)
	for _, c := range components {
		component := c.(map[string]any)
		for _, key := range []string{"description", "showcase", "start_date", "group_id", "page_id", "group", "only_show_if_degraded", "position"} {
			delete(component, key)
		}
	}
	inc["components"] = components
	out, err := json.Marshal(inc)
	if err != nil {
		f.Fatal(err)
	}
	return out
}

// htmlTagLike matches what ToMarkdown treats as HTML; the same pattern as its own.
var htmlTagLike = regexp.MustCompile(`(?i)</?(ul|ol|li|p|br|strong|b|em|i|a|code|pre|div|span|h[1-6])(\s[^>]*)?/?>`)

// FuzzToMarkdown checks the HTML-to-Markdown conversion of update bodies: no panic, no markup
// left raw, and no link but an http, https or mailto one.
func FuzzToMarkdown(f *testing.F) {
	for _, body := range []string{
		"<ul><li><strong>2010-02-07 06:00:00</strong> - Scheduled maintenance tonight at 10PM Pacific. No downtime expected.</li></ul>",
		`<ul><li><strong>2012-08-29 16:16:38</strong> - The <a href="https://github-images.s3.amazonaws.com/skitch/x.jpg">backlog has been processed</a> and we're back.</li></ul>`,
		`<p>One<br>two <em>three</em> <code>x*y</code></p><ol><li>a<ul><li>b</li></ul></li></ol>`,
		`<a href="javascript:alert(1)">click</a> <script>alert(1)</script> [x](javascript:y) <b>]( </b>`,
		"Plain text with <2 ms latency and **Markdown**.",
		`<ul><li>Search & Jobs is back.\r\n\r\n<a href="http://github.com/blog/680">More</a></li></ul>`,
		// Found by the fuzzer: a scheme with no address must not become a link.
		"<A href=http:>0", `<a href="mailto:">x</a>`, `<a href="https:/path">y</a>`, "<A href=http://<0>", `<a href="http://a>b/c<d">z</a>`,
	} {
		f.Add(body)
	}
	f.Fuzz(func(t *testing.T, body string) {
		out := statuspage.ToMarkdown(body)
		if !htmlTagLike.MatchString(body) {
			if out != body {
				t.Fatalf("text without markup changed: %q → %q", body, out)
			}
			return
		}
		for i := 0; i < len(out); i++ {
			escaped := i > 0 && out[i-1] == '\\'
			switch {
			case out[i] == '<' && !escaped:
				t.Fatalf("raw < left in %q (from %q)", out, body)
			case strings.HasPrefix(out[i:], "](") && !escaped:
				rest := strings.ToLower(out[i+2:])
				if !strings.HasPrefix(rest, "http://") && !strings.HasPrefix(rest, "https://") && !strings.HasPrefix(rest, "mailto:") {
					t.Fatalf("a link that is not http, https or mailto in %q (from %q)", out, body)
				}
			}
		}
	})
}
