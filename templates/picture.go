package templates

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/a-h/templ"

	"hindsight/models"
)

// Picture is an incident drawn on one time axis: the phases shaded, impact windows as bars by
// level, milestones as marks, public updates as ticks. Quiet stretches too long to draw to scale
// are compressed behind a visible break, so a three-day detection gap and a twenty-minute repair
// both read; compression never draws a longer phase shorter than a shorter one (fitScale), and
// the Summary beside it draws the whole incident to scale, so the proportions are not lost.
// Rows are the same picture as a table, for people who cannot see it.
type Picture struct {
	Empty  bool
	Markup string
	Rows   []PictureRow
	Legend []LegendItem
	// Breaks describe the compressed stretches, for the caption.
	Breaks []string
	// Summary is the whole incident drawn to scale, nil without phases.
	Summary *PictureSummary
}

// PictureRow is one line of the picture's text equivalent.
type PictureRow struct {
	At      time.Time
	When    string
	What    string
	Detail  string
	Class   string // the colour class of its mark
	IsPhase bool
}

// LegendItem explains one colour or mark of the picture.
type LegendItem struct {
	Class string
	Label string
	Mark  string // swatch, line or tick
}

// Chart renders the picture's SVG.
func (p Picture) Chart() templ.Component { return svgComponent(p.Markup) }

// IncidentPicture draws an incident for its page: the picture section, with its text equivalent.
func IncidentPicture(inc *models.Incident, loc *time.Location, now time.Time) templ.Component {
	if inc.ID == 0 || inc.UpdatedAt.IsZero() {
		return PictureSection(BuildPicture(inc, loc, now))
	}
	// A stored incident's picture changes only when the incident or one of its records does,
	// which moves updated_at, or when an open window grows with the clock: the minute is in the key.
	key := fmt.Sprintf("%d/%d/%s/%d", inc.ID, inc.UpdatedAt.UnixNano(), loc, now.Unix()/60)
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		if html, ok := pictures.get(key); ok {
			_, err := io.WriteString(w, html)
			return err
		}
		var buf bytes.Buffer
		if err := PictureSection(BuildPicture(inc, loc, now)).Render(ctx, &buf); err != nil {
			return err
		}
		pictures.put(key, buf.String())
		_, err := w.Write(buf.Bytes())
		return err
	})
}

// pictures remembers rendered incident pictures, keyed by what they are drawn from.
var pictures = newMemo(256)

// The picture's geometry, in SVG units; the viewBox scales to the page.
const (
	picWidth    = 1100.0
	picLabelW   = 112.0
	picPlotX0   = picLabelW + 10
	picPlotX1   = picWidth - 14
	picPad      = 10.0 // between the plot's edge and the first and last instants
	picBreakW   = 58.0 // the width a compressed stretch takes
	picLabelRow = 16.0 // height of a row of milestone labels
	picLane     = 16.0 // height of a bar lane
	picLaneGap  = 6.0
	picPhaseH   = 24.0
)

// Compression: a gap between two things worth drawing is broken when it is longer than
// breakAtLeast and more than half of the time still drawn to scale, and at least one gap stays.
const breakAtLeast = 6 * time.Hour

// timeScale maps instants to x, piecewise linear, with compressed breaks.
type timeScale struct {
	at     []int64   // Unix seconds of the stops, ascending
	x      []float64 // x of each stop
	breaks []scaleBreak
}

type scaleBreak struct {
	from, to time.Time
	x0, x1   float64
	gap      int // the index of the gap between stops it compresses
}

func (s *timeScale) pos(t time.Time) float64 {
	u := t.Unix()
	n, found := slices.BinarySearch(s.at, u)
	switch {
	case found:
		return s.x[n]
	case n == 0:
		return s.x[0]
	case n == len(s.at):
		return s.x[len(s.x)-1]
	}
	frac := float64(u-s.at[n-1]) / float64(s.at[n]-s.at[n-1])
	return s.x[n-1] + frac*(s.x[n]-s.x[n-1])
}

// broken tells whether x falls inside a compressed stretch.
func (s *timeScale) broken(x float64) bool {
	for _, b := range s.breaks {
		if x > b.x0+0.5 && x < b.x1-0.5 {
			return true
		}
	}
	return false
}

// visible returns the widest part of [x0, x1] outside the breaks, where a label can sit.
func (s *timeScale) visible(x0, x1 float64) (float64, float64) {
	bestFrom, bestTo := x0, x0
	from := x0
	for _, b := range s.breaks {
		if b.x1 <= x0 || b.x0 >= x1 {
			continue
		}
		if to := max(from, min(b.x0, x1)); to-from > bestTo-bestFrom {
			bestFrom, bestTo = from, to
		}
		from = max(from, b.x1)
	}
	if x1-from > bestTo-bestFrom {
		bestFrom, bestTo = from, x1
	}
	return bestFrom, bestTo
}

// scaleStops sorts and dedupes the instants to draw; a single instant gets half an hour each side.
func scaleStops(instants []int64) []int64 {
	slices.Sort(instants)
	instants = slices.Compact(instants)
	if len(instants) == 1 {
		instants = []int64{instants[0] - 1800, instants[0], instants[0] + 1800}
	}
	return instants
}

// compressedGaps chooses the gaps to break: the longest, while it is over breakAtLeast and more
// than half the time still drawn to scale.
func compressedGaps(stops []int64) []bool {
	gaps := make([]int64, len(stops)-1)
	for n := range gaps {
		gaps[n] = stops[n+1] - stops[n]
	}
	broken := make([]bool, len(gaps))
	for {
		var total int64
		largest, unbroken := -1, 0
		for n, g := range gaps {
			if broken[n] {
				continue
			}
			total += g
			unbroken++
			if largest < 0 || g > gaps[largest] {
				largest = n
			}
		}
		if unbroken <= 1 || time.Duration(gaps[largest])*time.Second < breakAtLeast || 2*gaps[largest] <= total {
			return broken
		}
		broken[largest] = true
	}
}

func newTimeScale(instants []int64) *timeScale {
	stops := scaleStops(instants)
	return scaleWith(stops, compressedGaps(stops), nil, picPlotX1)
}

// scaleWith lays the stops out between the plot's start and x1, each broken gap breakWidth wide
// (picBreakW unless widths says otherwise) and every other gap to one scale.
func scaleWith(stops []int64, broken []bool, widths map[int]float64, x1 float64) *timeScale {
	width := func(gap int) float64 {
		if w, ok := widths[gap]; ok {
			return w
		}
		return picBreakW
	}
	var scaled int64
	var breakWidth float64
	for n, b := range broken {
		if b {
			breakWidth += width(n)
		} else {
			scaled += stops[n+1] - stops[n]
		}
	}
	perSecond := (x1 - picPlotX0 - 2*picPad - breakWidth) / float64(max(scaled, 1))
	s := &timeScale{at: stops, x: make([]float64, len(stops))}
	s.x[0] = picPlotX0 + picPad
	for n, b := range broken {
		if b {
			s.x[n+1] = s.x[n] + width(n)
			s.breaks = append(s.breaks, scaleBreak{time.Unix(stops[n], 0), time.Unix(stops[n+1], 0), s.x[n], s.x[n+1], n})
		} else {
			s.x[n+1] = s.x[n] + float64(stops[n+1]-stops[n])*perSecond
		}
	}
	return s
}

// drawnLength is how long a phase is drawn: never less than the sliver the picture gives it.
func drawnLength(s *timeScale, p models.Phase) float64 {
	return max(s.pos(p.To)-s.pos(p.From), 1.5)
}

// monotonicViolation finds a phase drawn shorter than a shorter phase: the index of the longer
// one, of the shorter one, and how much the longer lacks; long is -1 when there is none.
func monotonicViolation(s *timeScale, phases []models.Phase) (long, short int, lack float64) {
	long, short = -1, -1
	for i, l := range phases {
		for j, sh := range phases {
			if l.Duration() > sh.Duration() {
				if d := drawnLength(s, sh) - drawnLength(s, l); d > 0.01 && d > lack {
					long, short, lack = i, j, d
				}
			}
		}
	}
	return long, short, lack
}

// breaksWithin lists the breaks inside a phase, and their width.
func breaksWithin(s *timeScale, p models.Phase) ([]scaleBreak, float64) {
	var inside []scaleBreak
	width := 0.0
	for _, b := range s.breaks {
		if !b.from.Before(p.From) && !b.to.After(p.To) {
			inside = append(inside, b)
			width += b.x1 - b.x0
		}
	}
	return inside, width
}

// fitScale is the picture's scale: quiet stretches compressed, but never so that a longer phase
// is drawn shorter than a shorter one. Where compression would do that, the breaks inside the
// longer phase are widened until it is not; if that cannot be done in the room there is, the
// whole picture is drawn to scale, which is always in order.
func fitScale(instants []int64, phases []models.Phase, x1 float64) *timeScale {
	stops := scaleStops(instants)
	broken := compressedGaps(stops)
	widths := map[int]float64{}
	plot := x1 - picPlotX0 - 2*picPad
	for range 24 {
		s := scaleWith(stops, broken, widths, x1)
		long, short, lack := monotonicViolation(s, phases)
		if long < 0 {
			return s
		}
		inside, _ := breaksWithin(s, phases[long])
		if len(inside) == 0 {
			break
		}
		totalBreaks := 0.0
		for _, b := range s.breaks {
			totalBreaks += b.x1 - b.x0
		}
		// Widening the breaks narrows what is drawn to scale, the shorter phase with it: widen
		// by what closes the gap once that is allowed for.
		_, shortBreaks := breaksWithin(s, phases[short])
		scaledRoom := max(plot-totalBreaks, 1)
		grow := lack/(1+(drawnLength(s, phases[short])-shortBreaks)/scaledRoom) + 0.5
		for _, b := range inside {
			widths[b.gap] = b.x1 - b.x0 + grow/float64(len(inside))
		}
		if totalBreaks+grow > plot*3/4 {
			break
		}
	}
	return scaleWith(stops, make([]bool, len(stops)-1), nil, x1)
}

type pictureMilestone struct {
	names []string
	at    time.Time
}

type pictureWindow struct {
	w        models.ImpactWindow
	end      time.Time
	assumed  bool // no end recorded: runs to mitigation or resolution
	ongoing  bool // no end known at all: drawn to now
	services string
}

// pictureData is what the picture draws, gathered from the incident.
type pictureData struct {
	inc      *models.Incident
	loc      *time.Location
	instants []int64
	marks    []pictureMilestone // milestones, those at the same instant together, in time order
	windows  []pictureWindow
	updates  []models.TimelineEvent
	phases   []models.Phase // those of some length
}

func collectPicture(inc *models.Incident, loc *time.Location, now time.Time) pictureData {
	d := pictureData{inc: inc, loc: loc}
	add := func(t time.Time) { d.instants = append(d.instants, t.Unix()) }
	for n, t := range inc.Milestones().List() {
		if t == nil {
			continue
		}
		add(*t)
		name := models.MilestoneLabels[models.MilestoneNames[n]]
		if k := slices.IndexFunc(d.marks, func(m pictureMilestone) bool { return m.at.Equal(*t) }); k >= 0 {
			d.marks[k].names = append(d.marks[k].names, strings.ToLower(name))
			continue
		}
		d.marks = append(d.marks, pictureMilestone{names: []string{name}, at: *t})
	}
	slices.SortFunc(d.marks, func(a, b pictureMilestone) int { return a.at.Compare(b.at) })
	for _, w := range inc.ImpactWindows {
		pw := pictureWindow{w: w, services: Join(w.ServiceNames())}
		if end := models.WindowEnd(w, inc); end != nil {
			pw.end, pw.assumed = *end, w.EndedAt == nil
		} else {
			pw.end, pw.ongoing = now, true
			if pw.end.Before(w.StartedAt) {
				pw.end = w.StartedAt
			}
		}
		add(w.StartedAt)
		add(pw.end)
		d.windows = append(d.windows, pw)
	}
	for _, ev := range inc.Timeline {
		if ev.Kind == "status_update" && ev.Public {
			add(ev.At)
			d.updates = append(d.updates, ev)
		}
	}
	// A phase of no length (mitigated and resolved at once) has nothing to draw.
	d.phases = slices.DeleteFunc(models.Phases(inc), func(p models.Phase) bool { return p.Duration() == 0 })
	return d
}

// span is the first and last instant drawn, and whether they fall on different days.
func (d pictureData) span() (first, last time.Time, multiDay bool) {
	stops := scaleStops(slices.Clone(d.instants))
	first, last = time.Unix(stops[0], 0), time.Unix(stops[len(stops)-1], 0)
	multiDay = first.In(d.loc).YearDay() != last.In(d.loc).YearDay() || first.In(d.loc).Year() != last.In(d.loc).Year()
	return first, last, multiDay
}

// markLabel is a milestone's label: it always starts just right of its own line, in the highest
// row where it overlaps no other label and no later milestone's line crosses it.
type markLabel struct {
	x, textX, textEnd float64
	row               int
	text, title       string
}

// placeLabels puts the milestone labels in rows. A line runs from its label's row down to the
// axis, so a label is set below every earlier label that reaches over its line.
//
// On a picture of several days a label names its day only when the one before it was on
// another, so the labels crowded at the end of an incident stay short.
func placeLabels(marks []pictureMilestone, scale *timeScale, multiDay bool, loc *time.Location) ([]markLabel, int) {
	var labels []markLabel
	rows := 0
	previousDay := ""
	for _, m := range marks {
		x := scale.pos(m.at)
		when, day := m.at.In(loc).Format("15:04"), m.at.In(loc).Format("2 Jan 2006")
		if multiDay && day != previousDay {
			when = m.at.In(loc).Format("2 Jan 15:04")
		}
		previousDay = day
		text := strings.Join(m.names, " & ") + " " + when
		l := markLabel{x: x, textX: x + 4, textEnd: x + 4 + boldTextWidth(text), text: text, title: strings.Join(m.names, " and ") + ": " + When(m.at, loc)}
		lowest := 0
		for _, p := range labels {
			if p.textX-4 <= x+2 && x-2 <= p.textEnd+8 {
				lowest = max(lowest, p.row+1)
			}
		}
		l.row = lowest
		for slices.ContainsFunc(labels, func(p markLabel) bool {
			return p.row == l.row && l.textX < p.textEnd+8 && p.textX < l.textEnd+8
		}) {
			l.row++
		}
		rows = max(rows, l.row+1)
		labels = append(labels, l)
	}
	return labels, rows
}

// pictureLayout is where each lane sits.
type pictureLayout struct {
	phaseY, updatesY, axisY, height float64
	levelY                          map[string]float64
}

var levelsWorstFirst = []string{"major_outage", "partial_outage", "degraded"}

func layoutLanes(d pictureData, labelRows int) pictureLayout {
	l := pictureLayout{levelY: map[string]float64{}}
	y := 4 + float64(labelRows)*picLabelRow + 4
	l.phaseY = y
	y += picPhaseH + picLaneGap
	for _, level := range levelsWorstFirst {
		if slices.ContainsFunc(d.windows, func(w pictureWindow) bool { return w.w.Level == level }) {
			l.levelY[level] = y
			y += picLane + picLaneGap
		}
	}
	l.updatesY = y
	if len(d.updates) > 0 {
		y += picLane + picLaneGap
	}
	l.axisY = y + 2
	l.height = l.axisY + 34
	return l
}

// fitPicture chooses the scale and places the milestone labels. The plot ends early enough for
// the last labels to fit to the right of their lines: a label never turns to the left of its
// line, where it would read as the label of the one before.
func fitPicture(d pictureData, multiDay bool) (*timeScale, []markLabel, int, float64) {
	x1 := picPlotX1
	scale := fitScale(slices.Clone(d.instants), d.phases, x1)
	labels, labelRows := placeLabels(d.marks, scale, multiDay, d.loc)
	for range 8 {
		overflow := 0.0
		for _, l := range labels {
			overflow = max(overflow, l.textEnd-(picWidth-2))
		}
		if overflow <= 0 {
			break
		}
		x1 -= overflow + 1
		scale = fitScale(slices.Clone(d.instants), d.phases, x1)
		labels, labelRows = placeLabels(d.marks, scale, multiDay, d.loc)
	}
	return scale, labels, labelRows, x1
}

// BuildPicture works out the picture of an incident in its display zone. now ends windows that
// are still open.
func BuildPicture(inc *models.Incident, loc *time.Location, now time.Time) Picture {
	d := collectPicture(inc, loc, now)
	if len(d.instants) == 0 {
		return Picture{Empty: true}
	}
	first, last, multiDay := d.span()
	short := func(t time.Time) string {
		if multiDay {
			return t.In(loc).Format("2 Jan 15:04")
		}
		return t.In(loc).Format("15:04")
	}

	scale, labels, labelRows, x1 := fitPicture(d, multiDay)
	lay := layoutLanes(d, labelRows)

	var w svgWriter
	desc := fmt.Sprintf("From %s to %s: %d phase%s, %d impact window%s, %d public update%s.",
		When(first, loc), When(last, loc), len(d.phases), plural(len(d.phases), "", "s"),
		len(d.windows), plural(len(d.windows), "", "s"), len(d.updates), plural(len(d.updates), "", "s"))
	if len(scale.breaks) > 0 {
		desc += fmt.Sprintf(" Not to scale: %d quiet stretch%s compressed.", len(scale.breaks), plural(len(scale.breaks), "", "es"))
	}
	w.open("picture-svg", "picture", picWidth, lay.height, "The incident on one time axis", desc)
	drawPhases(&w, d, scale, lay, last)
	drawWindows(&w, d, scale, lay)
	drawUpdates(&w, d, scale, lay)
	drawBreaks(&w, scale, lay, loc)
	drawMilestones(&w, labels, lay)
	drawAxis(&w, scale, lay, loc, x1)
	w.close()

	pic := Picture{Markup: w.String()}
	pic.Rows = pictureRows(inc, loc, d.phases, d.windows, d.updates, d.marks)
	pic.Legend = pictureLegend(d.phases, d.windows, d.updates)
	for _, b := range scale.breaks {
		pic.Breaks = append(pic.Breaks, fmt.Sprintf("%s (%s to %s)", Duration(b.to.Sub(b.from)), short(b.from), short(b.to)))
	}
	pic.Summary = buildSummary(d.phases, inc.Milestones().List())
	return pic
}

// drawPhases shades the phases behind every lane and gives them a lane of their own, named.
func drawPhases(w *svgWriter, d pictureData, scale *timeScale, lay pictureLayout, last time.Time) {
	for _, p := range d.phases {
		x0, x1 := scale.pos(p.From), scale.pos(p.To)
		w.rect("phase-band phase-"+p.Name, x0, lay.phaseY, x1-x0, lay.axisY-lay.phaseY, "")
	}
	w.text("lane-label", picLabelW, lay.phaseY+picPhaseH/2+4, "end", "Phases")
	for _, p := range d.phases {
		x0, x1 := scale.pos(p.From), scale.pos(p.To)
		title := fmt.Sprintf("%s: %s, %s to %s", p.Label, Duration(p.Duration()), When(p.From, d.loc), When(p.To, d.loc))
		w.rect("phase phase-"+p.Name, x0, lay.phaseY, max(x1-x0, 1.5), picPhaseH, title)
		v0, v1 := scale.visible(x0, x1)
		name := phaseShortName(p.Name)
		for _, text := range []string{name + " " + Duration(p.Duration()), Duration(p.Duration())} {
			if textWidth(text)+8 <= v1-v0 {
				w.text("phase-label", (v0+v1)/2, lay.phaseY+picPhaseH/2+4, "middle", text)
				break
			}
		}
	}
	// Without a detection time the phases after the start are unknown: say so where they would be.
	inc := d.inc
	if inc.StartedAt != nil && inc.DetectedAt == nil {
		until := last
		for _, p := range d.phases {
			if p.From.After(*inc.StartedAt) && p.From.Before(until) {
				until = p.From
			}
		}
		x0, x1 := scale.visible(scale.pos(*inc.StartedAt), scale.pos(until))
		if text := "Detection time not recorded: phases unknown"; textWidth(text)+16 <= x1-x0 {
			w.text("phase-unknown", (x0+x1)/2, lay.phaseY+picPhaseH/2+4, "middle", text)
		}
	}
}

// drawWindows draws the impact windows, one lane per level, worst on top.
func drawWindows(w *svgWriter, d pictureData, scale *timeScale, lay pictureLayout) {
	for _, level := range levelsWorstFirst {
		ly, ok := lay.levelY[level]
		if !ok {
			continue
		}
		w.text("lane-label", picLabelW, ly+picLane/2+4, "end", Label(level))
		for _, pw := range d.windows {
			if pw.w.Level != level {
				continue
			}
			x0, x1 := scale.pos(pw.w.StartedAt), scale.pos(pw.end)
			class := "bar level-" + level
			end := When(pw.end, d.loc)
			switch {
			case pw.ongoing:
				class += " ongoing"
				end = "ongoing"
			case pw.assumed:
				class += " assumed"
				end += " (no end recorded: runs to mitigation or resolution)"
			}
			title := fmt.Sprintf("%s from %s to %s", Label(level), When(pw.w.StartedAt, d.loc), end)
			if !pw.ongoing {
				title += ", " + Duration(pw.end.Sub(pw.w.StartedAt))
			}
			if pw.services != "" {
				title += ". " + pw.services
			}
			if pw.w.Note != "" {
				title += ". " + pw.w.Note
			}
			w.rect(class, x0, ly, max(x1-x0, 2), picLane, title)
		}
	}
}

// drawUpdates draws the public updates as ticks.
func drawUpdates(w *svgWriter, d pictureData, scale *timeScale, lay pictureLayout) {
	if len(d.updates) == 0 {
		return
	}
	w.text("lane-label", picLabelW, lay.updatesY+picLane/2+4, "end", "Public updates")
	for _, ev := range d.updates {
		x := scale.pos(ev.At)
		title := "Public update, " + When(ev.At, d.loc)
		if ev.Status != "" {
			title += " (" + strings.ToLower(Label(ev.Status)) + ")"
		}
		if body := excerpt(ev.Body, 160); body != "" {
			title += ": " + body
		}
		w.group("update status-"+ev.Status, title)
		w.line("tick", x, lay.updatesY, x, lay.updatesY+picLane, "")
		w.circle("dot", x, lay.updatesY+picLane/2, 3.5, "")
		w.endGroup()
	}
}

// drawBreaks cuts the plot at each compressed stretch and says by how much.
func drawBreaks(w *svgWriter, scale *timeScale, lay pictureLayout, loc *time.Location) {
	for _, b := range scale.breaks {
		gap := b.to.Sub(b.from)
		title := fmt.Sprintf("%s with nothing recorded (%s to %s), drawn shorter than to scale", Duration(gap), When(b.from, loc), When(b.to, loc))
		w.group("break", title)
		w.rect("break-fill", b.x0+4, lay.phaseY-3, b.x1-b.x0-8, lay.axisY-lay.phaseY+6, "")
		for _, x := range []float64{b.x0 + 7, b.x1 - 7} {
			w.path("break-edge", fmt.Sprintf("M%s %s l-3 4 l6 4 l-6 4 l6 4 l-3 4", num(x), num(lay.axisY-10)), "")
			w.line("break-edge", x, lay.phaseY-3, x, lay.axisY-10, "")
		}
		w.text("break-label", (b.x0+b.x1)/2, lay.phaseY+(lay.axisY-lay.phaseY)/2+4, "middle", compactDuration(gap))
		w.endGroup()
	}
}

// drawMilestones draws each milestone as a line through the lanes, its label just right of it.
func drawMilestones(w *svgWriter, labels []markLabel, lay pictureLayout) {
	for _, l := range labels {
		top := 4 + float64(l.row)*picLabelRow + 12
		w.group("milestone", l.title)
		w.line("milestone-line", l.x, top-10, l.x, lay.axisY, "")
		w.circle("milestone-dot", l.x, lay.axisY, 3, "")
		w.text("milestone-label", l.textX, top, "start", l.text)
		w.endGroup()
	}
}

// drawAxis draws the time axis, with ticks chosen per stretch drawn to scale.
func drawAxis(w *svgWriter, scale *timeScale, lay pictureLayout, loc *time.Location, x1 float64) {
	w.line("axis", picPlotX0, lay.axisY, x1, lay.axisY, "")
	lastLabelX, lastDay := -1000.0, ""
	for _, tick := range axisTicks(scale, loc) {
		x := scale.pos(tick.at)
		if scale.broken(x) || x-lastLabelX < 58 {
			continue
		}
		w.line("axis-tick", x, lay.axisY, x, lay.axisY+4, "")
		local := tick.at.In(loc)
		w.text("axis-label", x, lay.axisY+15, "middle", local.Format("15:04"))
		if day := local.Format("2 Jan"); day != lastDay || tick.runStart {
			w.text("axis-day", x, lay.axisY+28, "middle", day)
			lastDay = day
		}
		lastLabelX = x
	}
}

func phaseShortName(name string) string {
	switch name {
	case "latent":
		return "Latent"
	case "undetected":
		return "Undetected"
	case "unacknowledged":
		return "Unacknowledged"
	case "repairing":
		return "Repairing"
	case "recovering":
		return "Recovering"
	}
	return name
}

// compactDuration writes a long stretch briefly for a break label: "40 h", "3 d".
func compactDuration(d time.Duration) string {
	switch {
	case d >= 72*time.Hour:
		return fmt.Sprintf("≈ %d d", int((d+12*time.Hour)/(24*time.Hour)))
	case d >= 2*time.Hour:
		return fmt.Sprintf("≈ %d h", int((d+30*time.Minute)/time.Hour))
	}
	return Duration(d)
}

// excerpt shortens text to n characters on one line.
func excerpt(s string, n int) string {
	if strings.ContainsAny(s, "\n\r\t") || strings.Contains(s, "  ") {
		s = strings.Join(strings.Fields(s), " ")
	}
	if len(s) <= n { // bytes ≥ characters
		return s
	}
	count := 0
	for i := range s {
		if count == n-1 {
			return s[:i] + "…"
		}
		count++
	}
	return s
}

// tickSteps are the axis spacings on offer, finest first.
var tickSteps = []time.Duration{
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour, 48 * time.Hour, 7 * 24 * time.Hour,
}

type axisTick struct {
	at       time.Time
	runStart bool // the first instant after a break, labelled with its date
}

// axisTicks chooses, for each stretch drawn to scale, its first instant and then round local times
// about 70 units apart.
func axisTicks(s *timeScale, loc *time.Location) []axisTick {
	var ticks []axisTick
	runStart := 0
	for n := 1; n <= len(s.at); n++ {
		endOfRun := n == len(s.at) || slices.ContainsFunc(s.breaks, func(b scaleBreak) bool { return b.from.Unix() == s.at[n-1] })
		if !endOfRun {
			continue
		}
		from, to, fromX := s.at[runStart], s.at[n-1], s.x[runStart]
		ticks = append(ticks, axisTick{time.Unix(from, 0), runStart > 0})
		runStart = n
		if to <= from {
			continue
		}
		perSecond := (s.x[n-1] - fromX) / float64(to-from)
		step := tickSteps[len(tickSteps)-1]
		for _, candidate := range tickSteps {
			if candidate.Seconds()*perSecond >= 70 {
				step = candidate
				break
			}
		}
		for t := ceilLocal(time.Unix(from+1, 0), step, loc); t.Unix() <= to; t = nextTick(t, step, loc) {
			ticks = append(ticks, axisTick{at: t})
		}
	}
	return ticks
}

// ceilLocal rounds up to the next multiple of step in local wall-clock time, so ticks fall on
// 15:00 in the incident's zone even where it is offset by half an hour from UTC.
func ceilLocal(t time.Time, step time.Duration, loc *time.Location) time.Time {
	local := t.In(loc)
	midnight := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, loc)
	if step >= 24*time.Hour {
		if midnight.Before(t) {
			midnight = midnight.AddDate(0, 0, 1)
		}
		return midnight
	}
	since := local.Sub(midnight)
	ticks := (since + step - 1) / step
	return midnight.Add(ticks * step)
}

func nextTick(t time.Time, step time.Duration, loc *time.Location) time.Time {
	if step >= 24*time.Hour {
		local := t.In(loc)
		return time.Date(local.Year(), local.Month(), local.Day()+int(step/(24*time.Hour)), 0, 0, 0, 0, loc)
	}
	return ceilLocal(t.Add(step), step, loc)
}

// pictureRows is the picture in words, in time order.
func pictureRows(inc *models.Incident, loc *time.Location, phases []models.Phase, windows []pictureWindow, updates []models.TimelineEvent, marks []pictureMilestone) []PictureRow {
	var rows []PictureRow
	for _, p := range phases {
		rows = append(rows, PictureRow{At: p.From, When: When(p.From, loc), What: p.Label,
			Detail: fmt.Sprintf("%s, until %s", Duration(p.Duration()), When(p.To, loc)), Class: "phase-" + p.Name, IsPhase: true})
	}
	for _, m := range marks {
		name := strings.Join(m.names, " and ")
		rows = append(rows, PictureRow{At: m.at, When: When(m.at, loc), What: name, Class: "milestone"})
	}
	for _, pw := range windows {
		detail := "until " + When(pw.end, loc) + ", " + Duration(pw.end.Sub(pw.w.StartedAt))
		switch {
		case pw.ongoing:
			detail = "still ongoing"
		case pw.assumed:
			detail += " (no end recorded: runs to mitigation or resolution)"
		}
		if pw.services != "" {
			detail += ". " + pw.services
		}
		if pw.w.Note != "" {
			detail += ". " + pw.w.Note
		}
		rows = append(rows, PictureRow{At: pw.w.StartedAt, When: When(pw.w.StartedAt, loc), What: Label(pw.w.Level) + " began", Detail: detail, Class: "level-" + pw.w.Level})
	}
	for _, ev := range updates {
		what := "Public update"
		if ev.Status != "" {
			what += ": " + strings.ToLower(Label(ev.Status))
		}
		rows = append(rows, PictureRow{At: ev.At, When: When(ev.At, loc), What: what, Detail: excerpt(ev.Body, 200), Class: "update status-" + ev.Status})
	}
	slices.SortStableFunc(rows, func(a, b PictureRow) int { return a.At.Compare(b.At) })
	return rows
}

func pictureLegend(phases []models.Phase, windows []pictureWindow, updates []models.TimelineEvent) []LegendItem {
	var items []LegendItem
	for _, p := range phases {
		items = append(items, LegendItem{Class: "phase-" + p.Name, Label: phaseShortName(p.Name), Mark: "swatch"})
	}
	for _, level := range []string{"major_outage", "partial_outage", "degraded"} {
		if slices.ContainsFunc(windows, func(w pictureWindow) bool { return w.w.Level == level }) {
			items = append(items, LegendItem{Class: "level-" + level, Label: Label(level), Mark: "swatch"})
		}
	}
	items = append(items, LegendItem{Class: "milestone", Label: "Milestone", Mark: "line"})
	if len(updates) > 0 {
		items = append(items, LegendItem{Class: "update", Label: "Public update", Mark: "tick"})
	}
	return items
}

// boldTextWidth estimates the width of a milestone label, set in bold: wider than textWidth.
func boldTextWidth(s string) float64 {
	n := 0
	for range s {
		n++
	}
	return float64(n)*7 + 2
}
