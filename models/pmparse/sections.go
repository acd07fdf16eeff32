package pmparse

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// Section kinds besides the narrative fields' names.
const (
	kindFollowUps = "follow_ups"
	// kindPlan is a remediation plan: its list items are follow-ups, or without a list, each of
	// its paragraphs. A "Follow-up" heading on a status page often introduces prose instead.
	kindPlan   = "plan"
	kindTitle  = "title"
	kindIgnore = "-" // a heading we know and keep nothing under (the timeline)
)

// labels are the headings and lead-ins postmortems use, lower case, hyphens as spaces, longest
// first within each kind so "root cause analysis" beats "root cause".
var labels = []struct{ label, kind string }{
	{"summary of impact", "customer_impact"}, {"customer impact", "customer_impact"}, {"user impact", "customer_impact"},
	{"impact summary", "customer_impact"}, {"incident impact", "customer_impact"}, {"who was affected", "customer_impact"}, {"what was the impact", "customer_impact"},
	{"impact", "customer_impact"},
	{"executive summary", "summary"}, {"incident summary", "summary"}, {"summary", "summary"}, {"overview", "summary"},
	{"root cause analysis", "root_cause"}, {"root causes", "root_cause"}, {"root cause", "root_cause"},
	{"what happened", "root_cause"}, {"why did it happen", "root_cause"}, {"why did this happen", "root_cause"}, {"contributing factors", "root_cause"}, {"cause", "root_cause"},
	{"trigger", "trigger"},
	{"how was it detected", "detection"}, {"detection", "detection"},
	{"what did we do", "response"}, {"response", "response"}, {"mitigation", "response"}, {"resolution", "response"}, {"recovery", "response"},
	{"lessons learned", "lessons"}, {"lessons learnt", "lessons"}, {"lessons", "lessons"}, {"learnings", "lessons"},
	{"key takeaways", "lessons"}, {"insights", "lessons"}, {"what went well", "lessons"}, {"what went wrong", "lessons"}, {"what went poorly", "lessons"},
	{"follow up actions", kindFollowUps}, {"follow ups", kindFollowUps}, {"follow up", kindFollowUps}, {"followup", kindFollowUps},
	{"next steps", kindPlan}, {"remediation plan", kindPlan}, {"remediation", kindPlan},
	{"action items", kindPlan}, {"corrective actions", kindPlan}, {"preventive measures", kindPlan},
	{"preventative measures", kindPlan}, {"prevention", kindPlan}, {"what will we do", kindPlan},
	{"what are we doing", kindPlan}, {"how are we preventing", kindPlan}, {"how we are preventing", kindPlan}, {"future work", kindFollowUps}, {"improvements", kindFollowUps},
	{"title", kindTitle},
	{"update timeline", kindIgnore}, {"incident timeline", kindIgnore}, {"timeline", kindIgnore},
}

var (
	mdHeadingRe = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*$`)
	leadInRe    = regexp.MustCompile(`^\**([A-Za-z][A-Za-z &/,'-]{1,40}?)\**\s*:\**\s*(.*)$`)
	listItemRe  = regexp.MustCompile(`^\s*(?:[-*•+▪◦]|\d{1,2}[.)])\s+(?:\[[ xX]\]\s+)?(.+)$`)
	boldLeadRe  = regexp.MustCompile(`^\*\*(.+?)\*\*[:.]?\s*(.*)$`)
	// actionLeadRe is a paragraph that names itself an action: "**Action item:** Start …".
	actionLeadRe = regexp.MustCompile(`(?i)^\**(?:action items?|follow[- ]up(?: action)?|to ?do)\s*:\s*\**\s*(\S.*)$`)
)

func normLabel(s string) string {
	s = strings.ToLower(strings.TrimSpace(strings.Trim(strings.TrimSpace(s), "*_:?")))
	s = strings.ReplaceAll(s, "-", " ")
	return strings.Join(strings.Fields(s), " ")
}

// labelKind finds the label s starts with (exact when whole is set), and the rest of s.
func labelKind(s string, whole bool) (kind, rest string, ok bool) {
	n := normLabel(s)
	best := ""
	if n == "" {
		return "", "", false
	}
	for _, l := range labels {
		if l.label[0] != n[0] {
			continue // the cheap test: most lines share no first letter with most labels
		}
		if n == l.label {
			return l.kind, "", true
		}
		if !whole && strings.HasPrefix(n, l.label) && len(l.label) > len(best) {
			next := n[len(l.label)]
			if next == ' ' || next == '(' || next == '&' || next == ',' {
				best, kind = l.label, l.kind
			}
		}
	}
	if best == "" {
		return "", "", false
	}
	if i := afterLabel(s, best); i >= 0 {
		rest = strings.TrimLeft(s[i:], "*_:?) ")
	}
	return kind, rest, true
}

// isAllCaps tells whether s is a heading in capitals ("ROOT CAUSE & REMEDIATION").
func isAllCaps(s string) bool {
	letters := 0
	for _, r := range s {
		if unicode.IsLower(r) {
			return false
		}
		if unicode.IsLetter(r) {
			letters++
		}
	}
	return letters >= 3 && len(s) <= 80
}

// isHeading tells whether a line starts a section (used to end a status update's message).
func isHeading(t string) bool {
	if t == "" {
		return false
	}
	if mdHeadingRe.MatchString(t) {
		return true
	}
	if _, _, ok := labelKind(t, true); ok {
		return true
	}
	return len(t) < 100 && strings.HasSuffix(t, "?")
}

// heading reads a line as a heading: its level (1–6 for Markdown, 7 otherwise), its kind ("" for
// one we do not know), and the text after it on the same line.
func heading(t string) (level int, kind, rest string, ok bool) {
	if m := mdHeadingRe.FindStringSubmatch(t); m != nil {
		kind, rest, _ = labelKind(m[2], false)
		if strings.HasSuffix(m[2], "?") {
			rest = "" // "How are we preventing it from happening again?" is one heading
		}
		if kind == "" && len(m[1]) == 1 {
			kind, rest = kindTitle, m[2]
		}
		return len(m[1]), kind, rest, true
	}
	if len(t) > 80 {
		// A paragraph, not a heading; perhaps a "Label:" lead-in.
	} else if k, _, ok := labelKind(t, true); ok {
		return 7, k, "", true
	}
	if len(t) < 100 && strings.HasSuffix(t, "?") {
		k, _, _ := labelKind(t, false)
		return 7, k, "", true
	}
	if !strings.Contains(t, ":") {
		// No "Label:" lead-in.
	} else if m := leadInRe.FindStringSubmatch(t); m != nil {
		if k, _, ok := labelKind(m[1], true); ok {
			return 7, k, m[2], true
		}
		if isAllCaps(m[1]) {
			if k, _, ok := labelKind(m[1], false); ok {
				return 7, k, m[2], true
			}
			return 7, "", m[2], true
		}
	}
	if isAllCaps(t) {
		k, _, _ := labelKind(t, false)
		return 7, k, "", true
	}
	return 0, "", "", false
}

// sections sorts the lines that are not status updates into the narrative sections, the title
// and the follow-ups.
func (p *parser) sections(start int) {
	inc := &p.draft.Incident
	var current string // the kind being collected
	currentLevel := 0
	var buf []string
	var bufWords string
	sectionText := map[string]*strings.Builder{}
	sectionWords := map[string]string{}
	var order []string
	listed := false // the current plan section had list items
	// parent is set while the items of the current list are the details of a numbered item with
	// a bold lead ("2. **Migration to a new table**" and the bullets under it), not actions.
	parent := false
	flush := func() {
		text := strings.TrimSpace(strings.Join(buf, "\n"))
		buf = buf[:0]
		if current == kindPlan && !listed {
			paras := strings.Split(text, "\n\n")
			if len(paras) == 1 {
				// Text copied from a web page puts each paragraph on one line.
				paras = strings.Split(text, "\n")
			}
			for _, para := range paras {
				if para = strings.TrimSpace(para); para != "" {
					p.followUp(strings.Join(strings.Fields(para), " "), para)
				}
			}
		}
		listed, parent = false, false
		if current == "" || current == kindIgnore || current == kindFollowUps || current == kindPlan || text == "" {
			return
		}
		if current == kindTitle {
			first, _, _ := strings.Cut(text, "\n")
			p.setTitle(first, bufWords)
			return
		}
		b, ok := sectionText[current]
		if !ok {
			b = &strings.Builder{}
			sectionText[current] = b
			sectionWords[current] = bufWords
			order = append(order, current)
		} else {
			b.WriteString("\n\n")
		}
		b.WriteString(text)
	}
	seenContent := false
	for n := start; n < len(p.lines); n++ {
		if p.lines[n].consumed {
			continue
		}
		t := strings.TrimSpace(p.lines[n].text)
		if t == "" {
			if current != "" {
				buf = append(buf, "")
			}
			continue
		}
		if level, kind, rest, ok := heading(t); ok {
			p.lines[n].heading = true
			// A deeper heading inside a known section stays part of it.
			if kind == "" && current != "" && level < 7 && level > currentLevel {
				if current != kindFollowUps && current != kindPlan {
					buf = append(buf, t)
				}
				continue
			}
			if kind == kindTitle && level == 1 && inc.Title != "" {
				kind = ""
			}
			flush()
			if rest != "" && level < 7 {
				// Later passes read the sentence without its heading.
				p.lines[n].text = rest
			}
			current, currentLevel, bufWords = kind, level, t
			if rest != "" && strings.HasSuffix(t, rest) {
				// The evidence is the heading, not the paragraph run on after it.
				bufWords = strings.TrimSpace(strings.TrimSuffix(t, rest))
			}
			seenContent = true
			if kind == kindTitle && rest != "" {
				p.setTitle(rest, t)
				current = ""
				continue
			}
			if rest != "" {
				if kind == kindFollowUps || kind == kindPlan {
					p.followUp(rest, t)
					listed = true
				} else {
					buf = append(buf, rest)
				}
			}
			continue
		}
		if !seenContent && inc.Title == "" && len(t) <= titleMax && !strings.HasSuffix(t, ".") && !hasTime(t) {
			// The first line of a status page's incident or a document is its name.
			p.setTitle(t, t)
			seenContent = true
			continue
		}
		seenContent = true
		if current == kindFollowUps || current == kindPlan {
			if m := listItemRe.FindStringSubmatch(t); m != nil {
				numbered := t[0] >= '0' && t[0] <= '9'
				indented := strings.HasPrefix(p.lines[n].text, "  ") || strings.HasPrefix(p.lines[n].text, "\t")
				if listed && (indented || (parent && !numbered)) {
					p.followUpDetail(m[1])
					continue
				}
				p.followUp(m[1], t)
				listed, parent = true, numbered && strings.HasPrefix(m[1], "**")
			} else if m := actionLeadRe.FindStringSubmatch(t); m != nil {
				// "**Action item:** Start incidents earlier. …" between the lists.
				p.followUp(m[1], t)
				listed, parent = true, false
			} else if current == kindPlan {
				buf = append(buf, t)
			}
			continue
		}
		if current != "" {
			buf = append(buf, t)
		}
	}
	flush()
	for _, kind := range order {
		text := sectionText[kind].String()
		switch kind {
		case "summary":
			inc.Summary = cut(text, summaryMax)
		case "customer_impact":
			inc.CustomerImpact = cut(text, sectionMax)
		case "root_cause":
			inc.RootCause = cut(text, sectionMax)
		case "trigger":
			inc.Trigger = cut(text, sectionMax)
		case "detection":
			inc.Detection = cut(text, sectionMax)
		case "response":
			inc.Response = cut(text, sectionMax)
		case "lessons":
			inc.Lessons = cut(text, sectionMax)
		default:
			continue
		}
		p.draft.Evidence[kind] = sectionWords[kind]
	}
}

// followUpDetail adds a sub-item to the description of the follow-up listed last.
func (p *parser) followUpDetail(item string) {
	fus := p.draft.Incident.FollowUps
	if len(fus) == 0 || !hasLetter(item) {
		return
	}
	last := &fus[len(fus)-1]
	if last.Description == "" {
		last.Description = last.Title
	}
	last.Description = cut(last.Description+"\n- "+strings.TrimSpace(item), sectionMax)
}

var sentenceEndRe = regexp.MustCompile(`[.!?](?:\s|$)`)

// followUp adds one listed follow-up: its bold lead or first sentence is the title.
func (p *parser) followUp(item, words string) {
	item = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(item), "✅☑✔❌⬜🔲\ufe0f "))
	if !hasLetter(item) || bareURLRe.MatchString(item) {
		// A rule, a table border or a bare link is not an action.
		return
	}
	var title, description string
	if m := boldLeadRe.FindStringSubmatch(item); m != nil {
		title = strings.TrimRight(strings.TrimSpace(m[1]), ".:")
		if strings.TrimSpace(m[2]) != "" {
			description = item
		}
	} else {
		plain := strings.ReplaceAll(item, "**", "")
		title = plain
		if loc := sentenceEndRe.FindStringIndex(plain); loc != nil && loc[1] < len(plain) {
			title = strings.TrimSpace(plain[:loc[0]])
			description = item
		}
		title = strings.TrimRight(title, ".")
	}
	if len(title) > titleMax {
		title = cut(title, titleMax-3)
		if i := strings.LastIndexByte(title, ' '); i > titleMax/2 {
			title = title[:i]
		}
		title += "…"
		description = item
	}
	key := "follow_ups[" + strconv.Itoa(len(p.draft.Incident.FollowUps)) + "]"
	p.draft.Incident.FollowUps = append(p.draft.Incident.FollowUps, FollowUp{Title: title, Description: cut(description, sectionMax)})
	p.draft.Evidence[key] = words
}

// afterLabel returns where label (lower case, words joined by single spaces) ends in s, reading
// hyphens as spaces and skipping emphasis marks, or -1.
func afterLabel(s, label string) int {
	i, j := 0, 0
	for i < len(s) && (s[i] == ' ' || s[i] == '*' || s[i] == '_') {
		i++
	}
	for j < len(label) {
		if i >= len(s) {
			return -1
		}
		c := s[i]
		if c == '*' || c == '_' {
			i++
			continue
		}
		if c == '-' {
			c = ' '
		}
		if c == ' ' && label[j] == ' ' {
			for i < len(s) && (s[i] == ' ' || s[i] == '-') {
				i++
			}
			j++
			continue
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != label[j] {
			return -1
		}
		i++
		j++
	}
	return i
}

var bareURLRe = regexp.MustCompile(`^<?https?://\S+>?$`)

func hasLetter(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

// hasTime tells whether a line states a time of day: such a line is a statement, not a name.
func hasTime(t string) bool { return len(findClocks(t, findDays(t))) > 0 }
