package pmparse

import (
	"regexp"
	"strconv"
	"time"
)

var (
	majorOutageRe   = regexp.MustCompile(`(?i)\b(major|full|complete|total)\s+outage|\bwas\s+down\b|\bunavailable\b`)
	partialOutageRe = regexp.MustCompile(`(?i)\bpartial\s+outage|\boutage\b`)
)

// windowLevel reads the impact level from a window's words: a guess above "degraded" needs the
// words to say so.
func windowLevel(words string) string {
	switch {
	case majorOutageRe.MatchString(words):
		return "major_outage"
	case partialOutageRe.MatchString(words):
		return "partial_outage"
	}
	return "degraded"
}

// addWindow records a stated stretch of impact once.
func (p *parser) addWindow(from, to time.Time, words string) {
	for _, w := range p.draft.Incident.Windows {
		if w.StartedAt.Equal(from) && w.EndedAt.Equal(to) {
			return
		}
	}
	n := len(p.draft.Incident.Windows)
	p.draft.Incident.Windows = append(p.draft.Incident.Windows, Window{StartedAt: from, EndedAt: to, Level: windowLevel(words), Note: cut(words, 300)})
	p.draft.Evidence["windows["+strconv.Itoa(n)+"]"] = words
}

// wholeWindow adds the impact from the chosen start to the chosen mitigation when the text
// states both and no window read already spans them: seed 000 gives "Impact start" and "Impact
// end" as separate lines, and a most severe window inside.
func (p *parser) wholeWindow() {
	inc := &p.draft.Incident
	start, ok1 := inc.Milestones["started_at"]
	end, ok2 := inc.Milestones["mitigated_at"]
	if !ok1 || !ok2 || !end.After(start) {
		return
	}
	for _, w := range inc.Windows {
		if !w.StartedAt.After(start) && !w.EndedAt.Before(end) {
			return
		}
	}
	words := p.draft.Evidence["started_at"]
	if e := p.draft.Evidence["mitigated_at"]; e != "" && e != words {
		words += " … " + e
	}
	whole := Window{StartedAt: start, EndedAt: end, Level: windowLevel(words), Note: "Customer impact, from the stated start to the stated end"}
	inc.Windows = append([]Window{whole}, inc.Windows...)
	// Evidence keys follow the order of the list.
	shifted := map[string]string{"windows[0]": words}
	for k := range inc.Windows[1:] {
		shifted["windows["+strconv.Itoa(k+1)+"]"] = p.draft.Evidence["windows["+strconv.Itoa(k)+"]"]
	}
	for k, v := range shifted {
		p.draft.Evidence[k] = v
	}
}
