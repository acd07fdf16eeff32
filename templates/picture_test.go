package templates

import (
	"context"
	"encoding/xml"
	"io"
	"strings"
	"testing"
	"time"

	"hindsight/models"
)

func utcAt(value string) *time.Time {
	t, err := time.Parse("2006-01-02 15:04", value)
	if err != nil {
		panic(err)
	}
	return &t
}

// seed000 is seed 000: three days undetected, then under two hours to repair and recover.
func seed000() *models.Incident {
	inc := &models.Incident{
		Title: "Canada: slow responses", TimeZone: "UTC",
		StartedAt: utcAt("2026-03-09 16:00"), DetectedAt: utcAt("2026-03-12 16:54"),
		MitigatedAt: utcAt("2026-03-12 17:45"), ResolvedAt: utcAt("2026-03-12 18:28"),
		ImpactWindows: []models.ImpactWindow{
			{StartedAt: *utcAt("2026-03-09 16:00"), EndedAt: utcAt("2026-03-12 17:45"), Level: "degraded"},
			{StartedAt: *utcAt("2026-03-11 08:00"), EndedAt: utcAt("2026-03-11 12:00"), Level: "partial_outage", Note: "p99 ≈ 5 s"},
		},
	}
	for _, at := range []string{"16:39", "17:33", "17:55", "18:11", "18:18", "18:28"} {
		inc.Timeline = append(inc.Timeline, models.TimelineEvent{At: *utcAt("2026-03-12 " + at), Kind: "status_update", Status: "investigating", Public: true, Body: "Update"})
	}
	inc.Timeline = append(inc.Timeline, models.TimelineEvent{At: *utcAt("2026-03-16 07:06"), Kind: "note", Public: true, Body: "Postmortem published"})
	return inc
}

// seed002 is seed 002: three waves over seven hours, no stretch long enough to compress.
func seed002() *models.Incident {
	return &models.Incident{
		Title: "US: document automations failing in waves", TimeZone: "UTC",
		StartedAt: utcAt("2026-03-17 04:00"), DetectedAt: utcAt("2026-03-17 07:54"), AcknowledgedAt: utcAt("2026-03-17 07:57"),
		MitigatedAt: utcAt("2026-03-17 10:24"), ResolvedAt: utcAt("2026-03-17 10:52"),
		ImpactWindows: []models.ImpactWindow{
			{StartedAt: *utcAt("2026-03-17 04:00"), EndedAt: utcAt("2026-03-17 04:30"), Level: "partial_outage"},
			{StartedAt: *utcAt("2026-03-17 07:00"), EndedAt: utcAt("2026-03-17 08:00"), Level: "partial_outage"},
			{StartedAt: *utcAt("2026-03-17 09:00"), EndedAt: utcAt("2026-03-17 10:24"), Level: "partial_outage"},
		},
		Timeline: []models.TimelineEvent{{At: *utcAt("2026-03-17 07:54"), Kind: "alert", Body: "Failure-rate alert"}},
	}
}

func instantsOf(inc *models.Incident) []int64 {
	var out []int64
	for _, t := range inc.Milestones().List() {
		if t != nil {
			out = append(out, t.Unix())
		}
	}
	for _, w := range inc.ImpactWindows {
		out = append(out, w.StartedAt.Unix(), models.WindowEnd(w, inc).Unix())
	}
	for _, ev := range inc.Timeline {
		if ev.Kind == "status_update" && ev.Public {
			out = append(out, ev.At.Unix())
		}
	}
	return out
}

// wellFormed parses the markup as XML: every element closed, every text escaped.
func wellFormed(t *testing.T, markup string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(markup))
	for {
		_, err := d.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("picture is not well-formed XML: %v\n%s", err, markup)
		}
	}
}

func TestPictureCompressesTheDetectionGap(t *testing.T) {
	inc := seed000()
	scale := newTimeScale(instantsOf(inc))
	if len(scale.breaks) != 2 {
		t.Fatalf("%d breaks, want 2 (the 40 h before the worst stretch and the 28 h 39 min after it)", len(scale.breaks))
	}
	if got := scale.breaks[0].to.Sub(scale.breaks[0].from); got != 40*time.Hour {
		t.Errorf("first break %v, want 40h", got)
	}
	// Both read: the 51-minute repair and the 43-minute recovery get room, and the 4-hour worst
	// stretch stays to scale against them.
	repair := scale.pos(*inc.MitigatedAt) - scale.pos(*inc.DetectedAt)
	recovery := scale.pos(*inc.ResolvedAt) - scale.pos(*inc.MitigatedAt)
	worst := scale.pos(*utcAt("2026-03-11 12:00")) - scale.pos(*utcAt("2026-03-11 08:00"))
	if repair < 80 || recovery < 60 {
		t.Errorf("repair %.0f units, recovery %.0f: too narrow to read", repair, recovery)
	}
	if ratio := worst / repair; ratio < 4.6 || ratio > 4.8 { // 240 min / 51 min = 4.71
		t.Errorf("4 h drawn %.2f times the 51 min, want 4.71: not to scale", ratio)
	}
	last := 0.0
	for n, x := range scale.x {
		if x < last || x > picPlotX1 {
			t.Errorf("stop %d at %.1f after %.1f, plot ends at %.0f", n, x, last, picPlotX1)
		}
		last = x
	}

	pic := BuildPicture(inc, time.UTC, time.Now())
	wellFormed(t, pic.Markup)
	for _, want := range []string{
		`class="phase phase-undetected"`, "Undetected 72 h 54 min", "Repairing 51 min", `class="break"`, "≈ 40 h", "≈ 29 h",
		`class="bar level-degraded"`, `class="bar level-partial_outage"`, "Partial outage from 2026-03-11 08:00 UTC to 2026-03-11 12:00 UTC, 4 h. p99 ≈ 5 s",
		`class="update status-investigating"`, "Detected 12 Mar 16:54",
	} {
		if !strings.Contains(pic.Markup, want) {
			t.Errorf("picture lacks %q", want)
		}
	}
	if strings.Contains(pic.Markup, "Postmortem published") {
		t.Error("a note is not a public status update and has no tick")
	}
	if len(pic.Breaks) != 2 || !strings.HasPrefix(pic.Breaks[1], "28 h 39 min") {
		t.Errorf("caption breaks %q", pic.Breaks)
	}
	if first := pic.Rows[0]; first.What != "Undetected: the detection gap" || first.Detail != "72 h 54 min, until 2026-03-12 16:54 UTC" {
		t.Errorf("first row of the table %+v", first)
	}
}

func TestPictureOfThreeWavesIsToScale(t *testing.T) {
	inc := seed002()
	scale := newTimeScale(instantsOf(inc))
	if len(scale.breaks) != 0 {
		t.Errorf("seed 002 spans 6 h 52 min and needs no break, got %d", len(scale.breaks))
	}
	pic := BuildPicture(inc, time.UTC, time.Now())
	wellFormed(t, pic.Markup)
	if n := strings.Count(pic.Markup, `class="bar level-partial_outage"`); n != 3 {
		t.Errorf("%d bars, want the three waves", n)
	}
	for _, want := range []string{"Undetected 3 h 54 min", `class="phase phase-unacknowledged"`, "Repairing 2 h 27 min", "Acknowledged 07:57"} {
		if !strings.Contains(pic.Markup, want) {
			t.Errorf("picture lacks %q", want)
		}
	}
	if strings.Contains(pic.Markup, "Public updates") || len(pic.Breaks) != 0 {
		t.Error("seed 002 has no public update lane and no break")
	}
}

func TestPictureEdgeCases(t *testing.T) {
	now := *utcAt("2026-03-20 12:00")
	cases := []struct {
		name    string
		inc     *models.Incident
		want    []string
		notWant []string
	}{
		{"nothing recorded", &models.Incident{}, nil, nil},
		{"only a start", &models.Incident{StartedAt: utcAt("2026-03-09 16:00")}, []string{"Impact started 16:00"}, nil},
		{"ongoing window", &models.Incident{StartedAt: utcAt("2026-03-20 09:00"),
			ImpactWindows: []models.ImpactWindow{{StartedAt: *utcAt("2026-03-20 09:00"), Level: "major_outage"}}},
			[]string{`class="bar level-major_outage ongoing"`, "to ongoing", "Detection time not recorded"}, nil},
		{"text is escaped", &models.Incident{StartedAt: utcAt("2026-03-09 16:00"), ResolvedAt: utcAt("2026-03-09 17:00"),
			ImpactWindows: []models.ImpactWindow{{StartedAt: *utcAt("2026-03-09 16:00"), Level: "degraded", Note: `</title><script>alert(1)</script>`}},
			Timeline:      []models.TimelineEvent{{At: *utcAt("2026-03-09 16:30"), Kind: "status_update", Public: true, Body: `"quoted" & <b>bold</b>`}}},
			[]string{"&lt;/title&gt;&lt;script&gt;", "&#34;quoted&#34; &amp; &lt;b&gt;bold&lt;/b&gt;"}, []string{"<script>", "<b>"}},
		{"out of order", &models.Incident{StartedAt: utcAt("2026-03-09 16:00"), DetectedAt: utcAt("2026-03-09 15:00"), ResolvedAt: utcAt("2026-03-09 18:00")},
			[]string{"Detected 15:00"}, []string{"phase-undetected"}},
		{"latent period in London", &models.Incident{TriggeredAt: utcAt("2022-04-01 08:00"), StartedAt: utcAt("2022-04-05 07:00"), ResolvedAt: utcAt("2022-04-06 15:30")},
			[]string{`class="phase phase-latent"`, "Triggered 1 Apr 09:00", "≈ 4 d"}, nil},
	}
	london, _ := time.LoadLocation("Europe/London")
	for _, tc := range cases {
		pic := BuildPicture(tc.inc, london, now)
		if tc.want == nil {
			if !pic.Empty {
				t.Errorf("%s: want an empty picture", tc.name)
			}
			continue
		}
		if tc.name != "latent period in London" {
			pic = BuildPicture(tc.inc, time.UTC, now)
		}
		wellFormed(t, pic.Markup)
		for _, w := range tc.want {
			if !strings.Contains(pic.Markup, w) {
				t.Errorf("%s: lacks %q", tc.name, w)
			}
		}
		for _, w := range tc.notWant {
			if strings.Contains(pic.Markup, w) {
				t.Errorf("%s: contains %q", tc.name, w)
			}
		}
	}
}

func TestChartsAreWellFormed(t *testing.T) {
	st := models.Stats{Figure: models.FigureDetect, Total: 7, Recorded: 6, Invalid: 1, Min: 600, P25: 1200, Median: 1800, Mean: 2400,
		P75: 2400, P90: 4560, Max: 6000, Values: []int64{600, 1200, 1800, 2400, 6000}, Histogram: []int{0, 0, 1, 1, 2, 1, 0, 0, 0, 0, 0, 0}}
	empty := models.Stats{Figure: models.FigureImpact, Total: 7}
	periods := []models.TrendPeriod{{Label: "2026-01", Incidents: 2, Figures: []models.Stats{st}}, {Label: "2026-02"}, {Label: "2026-03", Incidents: 5, Figures: []models.Stats{st}}}
	for name, c := range map[string]interface {
		Render(context.Context, io.Writer) error
	}{
		"histogram": HistogramChart(st),
		"box":       BoxChart("b", "<TTD> by severity", []BoxRow{{"SEV1 & co", st}, {"SEV2", empty}}),
		"trend":     TrendChart(periods, "month"),
		"counts":    CountChart("c", "Incidents", []string{"Customer report", "Unknown"}, []int{3, 0}),
	} {
		var b strings.Builder
		if err := c.Render(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		wellFormed(t, b.String())
		if strings.Contains(b.String(), "NaN") || strings.Contains(b.String(), "Inf") {
			t.Errorf("%s: %s", name, b.String())
		}
	}
}

// BenchmarkPicture builds and renders seed 000's picture with 50 public updates and 5 windows.
func BenchmarkPicture(b *testing.B) {
	inc := seed000()
	for i := 0; i < 44; i++ {
		inc.Timeline = append(inc.Timeline, models.TimelineEvent{At: utcAt("2026-03-12 16:40").Add(time.Duration(i) * 2 * time.Minute),
			Kind: "status_update", Status: "monitoring", Public: true, Body: "Our teams continue to investigate degraded performance in the Canada region."})
	}
	for i := 0; i < 3; i++ {
		end := utcAt("2026-03-12 17:05").Add(time.Duration(i) * 10 * time.Minute)
		inc.ImpactWindows = append(inc.ImpactWindows, models.ImpactWindow{StartedAt: utcAt("2026-03-12 17:00").Add(time.Duration(i) * 10 * time.Minute),
			EndedAt: &end, Level: "major_outage"})
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := IncidentPicture(inc, time.UTC, time.Now()).Render(ctx, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
