package statuspage

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"hindsight/models"
	"hindsight/models/importer"
)

// impactWindows works out when customers were affected. Where the updates report component
// statuses, each component is impaired from the update that first reports it impaired until the
// update that reports it operational (or, at the latest, the resolution), at the level of its
// status; components impaired over the same stretch at the same level share a window. Without any
// component statuses, one window spans start to resolution at the level the incident's impact
// implies. A window that would end before it starts is left out, with a warning, because the
// store rejects it; the incident keeps its milestones and its figures are flagged invalid.
func impactWindows(rec *importer.Record, w wireIncident, updates []update) []models.WindowInput {
	in := rec.Input
	start := in.Milestones.StartedAt
	var end *time.Time
	resolved := in.Status == "resolved"
	if resolved {
		end = in.Milestones.ResolvedAt
	}
	type stretch struct {
		from    time.Time
		to      *time.Time
		level   string
		service string
	}
	var stretches []stretch
	open := map[string]*stretch{}
	var order []string
	reported := false
	for k, u := range updates {
		for _, c := range u.components {
			name := strings.TrimSpace(c.Name)
			if name == "" {
				continue
			}
			reported = true
			level, known := componentLevel[c.NewStatus]
			if !known {
				rec.Warnings = append(rec.Warnings, fmt.Sprintf("unknown component status %q ignored", c.NewStatus))
				continue
			}
			cur := open[name]
			if cur != nil && cur.level == level {
				continue
			}
			if cur != nil {
				at := u.at
				cur.to = &at
				stretches = append(stretches, *cur)
				delete(open, name)
			}
			if level == "" {
				continue
			}
			from := u.at
			// The first post often comes a little after the impact began.
			if k == 0 && start != nil && start.Before(from) {
				from = *start
			}
			if !slices.Contains(order, name) {
				order = append(order, name)
			}
			open[name] = &stretch{from: from, level: level, service: name}
		}
	}
	for _, name := range order {
		if cur := open[name]; cur != nil {
			if resolved && end == nil {
				continue // over, but nobody said when
			}
			cur.to = end
			stretches = append(stretches, *cur)
		}
	}
	if !reported {
		level := impactLevel[w.Impact]
		if level == "" || start == nil || (resolved && end == nil) {
			return []models.WindowInput{}
		}
		stretches = append(stretches, stretch{from: *start, to: end, level: level})
	}

	var windows []models.WindowInput
	byShape := map[string]int{}
	skipped := false
	for _, s := range stretches {
		if s.to != nil && s.to.Before(s.from) {
			skipped = true
			continue
		}
		if s.to != nil && s.to.Equal(s.from) {
			continue // no length: how long customers were affected is not known
		}
		key := fmt.Sprint(s.from.UnixNano(), s.to != nil, s.level)
		if s.to != nil {
			key += fmt.Sprint(s.to.UnixNano())
		}
		if n, ok := byShape[key]; ok {
			if s.service != "" {
				windows[n].Services = append(windows[n].Services, s.service)
			}
			continue
		}
		win := models.WindowInput{StartedAt: s.from, EndedAt: s.to, Level: s.level}
		if s.service != "" {
			win.Services = []string{s.service}
			win.Note = "From the component statuses posted on the status page."
		} else {
			win.Services = in.Services
			win.Note = fmt.Sprintf("From the incident's %s impact; the status page gave no component statuses.", w.Impact)
		}
		byShape[key] = len(windows)
		windows = append(windows, win)
	}
	if skipped {
		rec.Warnings = append(rec.Warnings, "an impact window would end before it starts (resolved_at is before the impact began): the window is left out")
	}
	slices.SortStableFunc(windows, func(a, b models.WindowInput) int {
		return cmp.Or(a.StartedAt.Compare(b.StartedAt), levelRank[b.Level]-levelRank[a.Level])
	})
	if windows == nil {
		windows = []models.WindowInput{}
	}
	return windows
}
