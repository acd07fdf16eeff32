package templates

import (
	"fmt"
	"html"
	"math"
	"regexp"
	"strconv"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/demo"
)

// demoIncident is a sample incident as the store would load it, without a database.
func demoIncident(s demo.Sample) *models.Incident {
	in := s.Incident
	ms := in.Milestones
	inc := &models.Incident{Title: in.Title, TimeZone: in.TimeZone,
		TriggeredAt: ms.TriggeredAt, StartedAt: ms.StartedAt, DetectedAt: ms.DetectedAt,
		AcknowledgedAt: ms.AcknowledgedAt, MitigatedAt: ms.MitigatedAt, ResolvedAt: ms.ResolvedAt}
	if s.Children.Timeline != nil {
		for _, e := range *s.Children.Timeline {
			inc.Timeline = append(inc.Timeline, models.TimelineEvent{At: e.At, Kind: e.Kind, Status: e.Status, Body: e.Body, Public: e.Public})
		}
	}
	if s.Children.ImpactWindows != nil {
		for _, w := range *s.Children.ImpactWindows {
			inc.ImpactWindows = append(inc.ImpactWindows, models.ImpactWindow{StartedAt: w.StartedAt, EndedAt: w.EndedAt, Level: w.Level, Note: w.Note})
		}
	}
	return inc
}

var (
	milestoneGroup = regexp.MustCompile(`<g class="milestone"><title>[^<]*</title><line class="milestone-line" x1="([\d.]+)" y1="([\d.]+)" x2="[\d.]+" y2="([\d.]+)"/><circle[^>]*/><text class="milestone-label" x="([\d.]+)" y="([\d.]+)"( text-anchor="[a-z]+")?>([^<]*)</text></g>`)
	summaryRect    = regexp.MustCompile(`<rect class="segment ([a-z_-]+)" data-seconds="(\d+)"(?: fill="currentColor" fill-opacity="[\d.]+")? x="([\d.]+)" y="0.0" width="([\d.]+)"`)
)

func parseFloat(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestPictureOfEverySeed checks the picture of each of the five seeds: a longer phase is never
// drawn shorter than a shorter one; the summary bar draws every phase exactly to scale (within a
// tenth of a unit of its 1,000, far under a pixel); and every milestone label starts just right
// of its own line, inside the picture, with no other milestone's line through it.
func TestPictureOfEverySeed(t *testing.T) {
	for _, sample := range demo.Incidents() {
		t.Run(sample.Key, func(t *testing.T) {
			inc := demoIncident(sample)
			loc := inc.Location()
			pic := BuildPicture(inc, loc, time.Now())
			wellFormed(t, pic.Markup)

			// The monotonic rule, on the scale the picture was drawn with.
			d := collectPicture(inc, loc, time.Now())
			_, _, multiDay := d.span()
			scale, _, _, _ := fitPicture(d, multiDay)
			for _, long := range d.phases {
				for _, short := range d.phases {
					if long.Duration() > short.Duration() && drawnLength(scale, long) < drawnLength(scale, short) {
						t.Errorf("%s (%s) drawn %.1f, shorter than %s (%s) drawn %.1f",
							long.Name, Duration(long.Duration()), drawnLength(scale, long), short.Name, Duration(short.Duration()), drawnLength(scale, short))
					}
				}
			}

			// The summary bar: each phase of the whole, exactly.
			if pic.Summary == nil {
				t.Fatal("no summary bar")
			}
			total := pic.Summary.Total().Seconds()
			rects := summaryRect.FindAllStringSubmatch(pic.Summary.Markup, -1)
			if len(rects) != len(pic.Summary.Segments) {
				t.Fatalf("%d segments drawn, want %d: %s", len(rects), len(pic.Summary.Segments), pic.Summary.Markup)
			}
			var covered float64
			for n, r := range rects {
				seconds, width := parseFloat(t, r[2]), parseFloat(t, r[4])
				if want := summaryWidth * seconds / total; math.Abs(width-want) > 0.1 {
					t.Errorf("segment %s drawn %.1f of %.0f, want %.2f", r[1], width, summaryWidth, want)
				}
				if x := parseFloat(t, r[3]); math.Abs(x-covered) > 0.1 {
					t.Errorf("segment %d starts at %.1f, want %.1f: the bar has a gap or an overlap", n, x, covered)
				}
				covered += width
				if s := pic.Summary.Segments[n]; s.Name != "" && "phase-"+s.Name != r[1] {
					t.Errorf("segment %d class %s, want phase-%s", n, r[1], s.Name)
				}
			}
			if math.Abs(covered-summaryWidth) > 0.3 {
				t.Errorf("the bar covers %.1f of %.0f", covered, summaryWidth)
			}
			for _, p := range d.phases {
				if !slicesContainsPhase(pic.Summary.Segments, p) {
					t.Errorf("the summary lacks the phase %s", p.Name)
				}
			}

			// Labels: right of their own line, inside the picture, crossed by no other line.
			groups := milestoneGroup.FindAllStringSubmatch(pic.Markup, -1)
			if len(groups) != len(d.marks) {
				t.Fatalf("%d milestone groups parsed, want %d", len(groups), len(d.marks))
			}
			type box struct{ lineX, lineTop, textX, textEnd, baseline float64 }
			boxes := make([]box, len(groups))
			for n, g := range groups {
				b := box{lineX: parseFloat(t, g[1]), lineTop: parseFloat(t, g[2]), textX: parseFloat(t, g[4]), baseline: parseFloat(t, g[5])}
				b.textEnd = b.textX + boldTextWidth(html.UnescapeString(g[7]))
				boxes[n] = b
				if g[6] != "" || b.textX < b.lineX || b.textX > b.lineX+6 {
					t.Errorf("label %q at %.1f%s does not start just right of its line at %.1f", g[7], b.textX, g[6], b.lineX)
				}
				if b.textEnd > picWidth {
					t.Errorf("label %q ends at %.1f, outside the picture", g[7], b.textEnd)
				}
			}
			for n, b := range boxes {
				for m, other := range boxes {
					if m != n && other.lineX >= b.textX-1 && other.lineX <= b.textEnd+1 && other.lineTop < b.baseline {
						t.Errorf("the line of %q runs through the label %q", groups[m][7], groups[n][7])
					}
				}
			}
		})
	}
}

func slicesContainsPhase(segments []SummarySegment, p models.Phase) bool {
	for _, s := range segments {
		if s.Name == p.Name && s.From.Equal(p.From) && s.To.Equal(p.To) {
			return true
		}
	}
	return false
}

// TestSeed000PhaseLengths writes down how long seed 000's phases are drawn, in the picture's
// units of its 1,100 width: the 72 h 54 min detection gap longest, though compressed, and in the
// to-scale bar 86 times as long as the 51 min repair, as it was.
func TestSeed000PhaseLengths(t *testing.T) {
	inc := demoIncident(demo.Incidents()[0])
	d := collectPicture(inc, time.UTC, time.Now())
	scale, _, _, _ := fitPicture(d, true)
	got := map[string]string{}
	for _, p := range d.phases {
		got[p.Name] = fmt.Sprintf("%.1f", drawnLength(scale, p))
	}
	want := map[string]string{"undetected": "660.3", "repairing": "108.9", "recovering": "91.8"}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s drawn %s, want %s", name, got[name], w)
		}
	}
	pic := BuildPicture(inc, time.UTC, time.Now())
	lengths := map[string]float64{}
	for _, s := range pic.Summary.Segments {
		lengths[s.Name] = s.X1 - s.X0
	}
	if ratio := lengths["undetected"] / lengths["repairing"]; math.Abs(ratio-4374.0/51) > 0.01 {
		t.Errorf("to scale, the detection gap is %.2f times the repair, want %.2f", ratio, 4374.0/51)
	}
	if text := pic.Summary.Text(); text != "To scale, 74 h 28 min in all: Undetected 72 h 54 min (97.9 %), Repairing 51 min (1.1 %), Recovering 43 min (1.0 %)." {
		t.Errorf("summary text %q", text)
	}
}

// TestCompressionNeverDrawsALongerPhaseShorter: a seven-hour detection gap with nothing in it
// would be compressed to a break, but the six-hour repair after it, full of updates, cannot be
// compressed; the break is widened until the gap is drawn at least as long as the repair.
func TestCompressionNeverDrawsALongerPhaseShorter(t *testing.T) {
	inc := &models.Incident{StartedAt: utcAt("2026-03-09 00:00"), DetectedAt: utcAt("2026-03-09 07:00"), MitigatedAt: utcAt("2026-03-09 13:00")}
	for at := utcAt("2026-03-09 07:30"); at.Before(*inc.MitigatedAt); *at = at.Add(30 * time.Minute) {
		inc.Timeline = append(inc.Timeline, models.TimelineEvent{At: *at, Kind: "status_update", Status: "identified", Public: true})
	}
	if s := newTimeScale(instantsOf(inc)); len(s.breaks) != 1 || s.pos(*inc.DetectedAt)-s.pos(*inc.StartedAt) > 60 {
		t.Fatalf("the plain compression should squeeze the gap into one break: %+v", s.breaks)
	}
	d := collectPicture(inc, time.UTC, time.Now())
	scale, _, _, _ := fitPicture(d, false)
	gap, repair := drawnLength(scale, d.phases[0]), drawnLength(scale, d.phases[1])
	if gap < repair {
		t.Errorf("the 7 h gap is drawn %.1f, shorter than the 6 h repair's %.1f", gap, repair)
	}
	if len(scale.breaks) != 1 {
		t.Errorf("the gap should stay a (wider) break, got %d breaks", len(scale.breaks))
	}
}
