package pmparse

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// cues are the words that say which milestone a time in the same sentence is.
var cues = []struct {
	field string
	keys  []string // one of these, lower case, is in every match: a cheap test first
	re    *regexp.Regexp
}{
	{"triggered_at", []string{"trigger", "change was"}, regexp.MustCompile(`(?i)\b(triggered at|trigger time|change was (?:deployed|made|rolled out) (?:at|on))\b`)},
	{"started_at", []string{"start", "began", "beginning", "first ", "compromised"}, regexp.MustCompile(`(?i)\b(impact start(?:ed)?|start time|began|beginning (?:at|on)|starting (?:at|on)|started (?:at|on)|first (?:impact|errors|failures|reports) (?:at|on)|(?:was|were) compromised)\b`)},
	{"detected_at", []string{"detect", "alert", "paged", "notice", "reached out", "informed us", "contacted us"}, regexp.MustCompile(`(?i)\b(detected|detects|detection time|first alerted|were alerted|was alerted|alert fired|paged|notices|noticed|(?:customers?|users?) (?:reached out|informed us|contacted us))\b`)},
	{"acknowledged_at", []string{"acknowledged", "declared"}, regexp.MustCompile(`(?i)\b(acknowledged|incident (?:was )?declared|declared an? (?:[\w-]+ )?incident)\b`)},
	{"mitigated_at", []string{"impact end", "end time", "mitigat", "restored", "recovered", "improved", "relieve", "revoked"}, regexp.MustCompile(`(?i)\b(impact end(?:ed)?|revoked (?:the |all |our )?(?:[\w-]+ )?(?:tokens?|credentials|keys)|end time|mitigation (?:was )?(?:applied|deployed|completed?)|mitigated (?:at|on|by)|(?:was|were) mitigated|fully restored|(?:service|services) (?:was |were )?restored|recovered at|fully recovered|performance improved|relieve)\b`)},
	{"resolved_at", []string{"resol", "declared", "closed"}, regexp.MustCompile(`(?i)\b(resolved at|resolved on|marked (?:as )?resolved|resolution time|(?:was|were) resolved|declared (?:over|resolved)|incident (?:was )?closed)\b`)},
}

// dayCues are the sentences that state a milestone with a date and no time of day: seed 004's
// "On the 1st of April we deployed a change", the trigger, known only to the day.
var dayCues = []struct {
	field string
	keys  []string
	re    *regexp.Regexp
}{
	{"triggered_at", []string{"change", "deploy", "trigger"}, regexp.MustCompile(`(?i)\b(?:(?:we|they|engineers?|the team)\s+(?:deployed|released|rolled out|pushed|shipped|made)\b[^.;]{0,40}\bchange\b|change was (?:deployed|made|rolled out|released)\b|was triggered\b)`)},
}

var (
	negationRe     = regexp.MustCompile(`(?i)\b(?:not|never|no|n't|without)\s+(?:\w+\s+)?$`)
	windowExclude  = regexp.MustCompile(`(?i)most severe|\bpeak|\bworst|\bwaves?\b`)
	betweenRe      = regexp.MustCompile(`(?i)\b(?:between|from)\b`)
	andGlueRe      = regexp.MustCompile(`(?i)\band\b`)
	detectedWithin = regexp.MustCompile(`(?i)\bdetected\s+(?:with)?in\s+(?:about\s+|approximately\s+|around\s+|~)?(\d{1,3})\s+(minutes?|mins?|hours?|hrs?)\b`)
	allTimesRe     = regexp.MustCompile(`(?i)\ball times (?:are |in |are in )?(?:shown in )?([A-Za-z/_+:\d-]+)`)
	sentenceCutRe  = regexp.MustCompile(`[.!?;]\s+[A-Z*(\[]`)
)

// sentences cuts a line into sentences, as byte ranges.
func sentences(l string) [][2]int {
	var out [][2]int
	start := 0
	for _, m := range sentenceCutRe.FindAllStringIndex(l, -1) {
		out = append(out, [2]int{start, m[0] + 1})
		start = m[1] - 1
	}
	return append(out, [2]int{start, len(l)})
}

// found is a time in a line with the instant it stands for.
type found struct {
	clock
	at          time.Time
	literal     *time.Time
	ownDay      bool // the date was written with it, not carried
	dayAt       int  // where on the line that date is written; -1 when carried
	day         day  // the date it was read on
	restatement bool // "(8:54 am PST)" after "16:54 UTC": the same moment again
}

// instant builds the UTC instant of a date and a time; the second result is the literal reading
// of a zone abbreviation that the zone's rules contradict on that day.
func (p *parser) instantReadings(d day, c clock) (time.Time, *time.Time, bool) {
	year := p.yearOf(d)
	if year == 0 {
		return time.Time{}, nil, false
	}
	loc := c.zone
	if loc == nil {
		loc = p.lastZ
	}
	abbrev := c.abbrev
	if c.zone == nil {
		abbrev = p.lastAbb
	}
	if loc == nil {
		loc = p.zone
	}
	t := time.Date(year, d.month, d.day, c.hour, c.minute, 0, 0, loc)
	if t.Day() != d.day || t.Month() != d.month || !inRange(t) {
		return time.Time{}, nil, false
	}
	var literal *time.Time
	if hours, ok := zoneAbbrevOffsets[abbrev]; ok {
		if _, offset := t.Zone(); offset != hours*3600 {
			l := time.Date(year, d.month, d.day, c.hour, c.minute, 0, 0, time.FixedZone(abbrev, hours*3600)).UTC()
			if inRange(l) {
				literal = &l
			}
		}
	}
	return t.UTC(), literal, true
}

func (p *parser) instant(d day, c clock) (time.Time, bool) {
	t, _, ok := p.instantReadings(d, c)
	if ok && d.year != 0 {
		p.lastYr = d.year
	}
	return t, ok
}

func (p *parser) add(field string, c candidate) { p.cands[field] = append(p.cands[field], c) }

// maxOvernight is the longest window read as running past midnight when its end, with no date
// of its own, is earlier in the day than its start.
const maxOvernight = 12 * time.Hour

type duration struct {
	after time.Duration
	words string
}

// milestones reads the sentences that state a milestone, carrying the date, year and zone.
func (p *parser) milestones(start int) {
	p.lastYr, p.lastZ, p.lastAbb, p.log = 0, nil, "", logState{}
	var within []duration
	for n := start; n < len(p.lines); n++ {
		l := p.lines[n].text
		if !strings.Contains(l, "imes") {
			// No "All times in UTC" on this line.
		} else if m := allTimesRe.FindStringSubmatch(l); m != nil {
			if loc, _, k := readZone(m[1]); k > 0 {
				p.zone = loc
			}
		}
		if !strings.Contains(l, "ime (") && !strings.Contains(l, "imes (") {
			// No "| Time (UTC) |" on this line.
		} else if m := tableZoneRe.FindStringSubmatch(l); m != nil {
			if loc, _, k := readZone(m[1]); k > 0 {
				p.zone = loc
			}
		}
		if !strings.ContainsAny(l, "0123456789") {
			continue
		}
		days := findDays(l)
		fillYears(days)
		clocks := findClocks(l, days)
		if len(clocks) == 0 && len(days) == 0 && !strings.Contains(l, "etected") {
			continue
		}
		spans := sentences(l)
		sentenceOf := func(pos int) [2]int {
			for _, s := range spans {
				if pos >= s[0] && pos < s[1] {
					return s
				}
			}
			return spans[len(spans)-1]
		}
		var times []found
		for i, c := range clocks {
			s := sentenceOf(c.start)
			d, own := dayFor(l, clocks, i, days, s[0])
			if !own {
				// The last date before it on the line, else the one carried from before.
				d, own = day{}, false
				for k := len(days) - 1; k >= 0; k-- {
					if days[k].end <= c.start {
						d, own = days[k], true
						break
					}
				}
				if !own {
					if !p.hasDay {
						continue
					}
					d = p.lastDay
				}
				if nextDay(l, c) {
					// "At 4:11 AM UTC the following morning": the day after the one carried.
					d, own = dayAfter(d), false
				}
			}
			f := found{clock: c, ownDay: own, dayAt: -1, day: d}
			if own {
				f.dayAt = d.start
			}
			if i > 0 && strings.TrimSpace(l[clocks[i-1].end:c.start]) == "(" {
				f.restatement = true
			}
			at, literal, ok := p.instantReadings(d, c)
			if !ok {
				continue
			}
			f.at, f.literal = at, literal
			times = append(times, f)
			if !f.restatement && c.zone != nil {
				p.lastZ, p.lastAbb = c.zone, c.abbrev
			}
		}
		logged := false // a log line: the range at its head is how long a step took, not impact
		if !p.lines[n].consumed {
			p.headingDay(n, days)
			logged = p.logEntry(l, days, clocks, times)
		}
		for _, s := range spans {
			sentence := l[s[0]:s[1]]
			var inside []found
			for _, f := range times {
				if f.start >= s[0] && f.start < s[1] && !f.restatement {
					inside = append(inside, f)
				}
			}
			if !strings.Contains(sentence, "etected") {
				// No "detected within 20 minutes" here.
			} else if m := detectedWithin.FindStringSubmatch(sentence); m != nil {
				amount, _ := strconv.Atoi(m[1])
				unit := time.Minute
				if strings.HasPrefix(strings.ToLower(m[2]), "h") {
					unit = time.Hour
				}
				within = append(within, duration{time.Duration(amount) * unit, evidenceWords(sentence)})
			}
			if len(inside) == 0 {
				p.dayMilestone(sentence, s, days)
				continue
			}
			words := evidenceWords(sentence)
			lower := asciiLower(sentence)
			for _, cue := range cues {
				if !containsAny(lower, cue.keys) {
					continue
				}
				for _, m := range cue.re.FindAllStringIndex(sentence, -1) {
					if negationRe.MatchString(sentence[:m[0]]) {
						continue
					}
					var pick *found
					for k := range inside {
						if inside[k].start >= s[0]+m[1] {
							pick = &inside[k]
							break
						}
					}
					if pick == nil {
						for k := len(inside) - 1; k >= 0; k-- {
							if inside[k].end <= s[0]+m[0] {
								pick = &inside[k]
								break
							}
						}
					}
					if pick != nil {
						p.add(cue.field, candidate{at: pick.at, literal: pick.literal, words: words, strength: fromSentence})
					}
				}
			}
			{
				excluded := windowExclude.MatchString(sentence)
				for k := 0; k+1 < len(inside); k++ {
					a, b := inside[k], inside[k+1]
					if logged && a.start == clocks[0].start {
						continue
					}
					glue := l[a.end:b.start]
					ranged := rangeGlue(glue) || rangeGlueAcrossDays(l, a.end, b.start, days)
					if !ranged && !(andGlueRe.MatchString(glue) && len(glue) < 60 && betweenRe.MatchString(l[s[0]:a.start])) {
						continue
					}
					end := b.at
					if end.Before(a.at) && b.dayAt == a.dayAt && end.Add(24*time.Hour).Sub(a.at) <= maxOvernight {
						// "23:30–00:15 UTC" with one date for both: the end is the next day.
						end = end.Add(24 * time.Hour)
					}
					if end.Before(a.at) || !inRange(end) {
						// "16:02 UTC -- 15:02 UTC" on one day is a slip of the pen or a window of
						// days whose dates were left out: either reading would be a guess.
						continue
					}
					p.addWindow(a.at, end, words)
					if !excluded {
						p.add("started_at", candidate{at: a.at, literal: a.literal, words: words, strength: fromWindow})
						p.add("mitigated_at", candidate{at: end, literal: b.literal, words: words, strength: fromWindow})
					}
					k++
				}
			}

		}
		// Carry the last date and zone of the line to the lines after it.
		for _, d := range days {
			if d.year != 0 {
				p.lastYr = d.year
			} else if d.year = p.yearOf(d); d.year == 0 {
				continue
			}
			p.lastDay, p.hasDay = d, true
		}
	}
	// "Detected within 20 minutes" counts from the start, once the start is known.
	if len(p.cands["detected_at"]) == 0 && len(within) > 0 {
		if started, ok := best(p.cands["started_at"]); ok {
			at := started.at.Add(within[0].after)
			if inRange(at) {
				p.add("detected_at", candidate{at: at, words: within[0].words, strength: fromDuration})
			}
		}
	}
}

// dayMilestone reads a milestone a sentence states with a date and no time of day (dayCues):
// the date written in the sentence, its year carried from the text when it names none.
func (p *parser) dayMilestone(sentence string, span [2]int, days []day) {
	var d *day
	for k := range days {
		if days[k].start >= span[0] && days[k].start < span[1] {
			d = &days[k]
			break
		}
	}
	if d == nil {
		return
	}
	lower := asciiLower(sentence)
	for _, cue := range dayCues {
		if !containsAny(lower, cue.keys) {
			continue
		}
		m := cue.re.FindStringIndex(sentence)
		if m == nil || negationRe.MatchString(sentence[:m[0]]) {
			continue
		}
		year := p.yearOf(*d)
		if year == 0 && p.hasDay {
			year = p.lastDay.year
		}
		if year == 0 {
			return
		}
		at := time.Date(year, d.month, d.day, 0, 0, 0, 0, p.zone)
		if at.Day() != d.day || !inRange(at) {
			return
		}
		p.add(cue.field, candidate{at: at.UTC(), words: evidenceWords(sentence), strength: fromDay, day: true})
	}
}

// evidenceWords trims a sentence to the words shown beside a suggestion.
func evidenceWords(s string) string {
	s = strings.ReplaceAll(s, "**", "")
	s = strings.TrimSpace(strings.Trim(strings.TrimSpace(s), "*-•#|"))
	s = strings.Join(strings.Fields(s), " ")
	return cut(s, 400)
}

func best(cs []candidate) (candidate, bool) {
	if len(cs) == 0 {
		return candidate{}, false
	}
	sorted := append([]candidate(nil), cs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].strength > sorted[j].strength })
	return sorted[0], true
}

var milestoneFields = []string{"triggered_at", "started_at", "detected_at", "acknowledged_at", "mitigated_at", "resolved_at"}

// decide picks each milestone's reading, the firmest first; other instants become alternatives.
func (p *parser) decide() {
	for _, field := range milestoneFields {
		cs := p.cands[field]
		if len(cs) == 0 {
			continue
		}
		sorted := append([]candidate(nil), cs...)
		sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].strength > sorted[j].strength })
		if field == "resolved_at" && sorted[0].strength == fromStatus {
			// The last resolved update is when it was declared over.
			last := 0
			for k, c := range sorted {
				if c.strength == fromStatus && c.at.After(sorted[last].at) {
					last = k
				}
			}
			sorted[0], sorted[last] = sorted[last], sorted[0]
		}
		primary := sorted[0]
		p.draft.Incident.Milestones[field] = primary.at
		p.draft.Evidence[field] = primary.words
		if primary.day {
			p.draft.Incident.MilestoneDays = append(p.draft.Incident.MilestoneDays, field)
		}
		seen := map[time.Time]bool{primary.at: true}
		var alts []Reading
		addAlt := func(at time.Time, words string) {
			if !seen[at] {
				seen[at] = true
				alts = append(alts, Reading{At: at, Words: words})
			}
		}
		if primary.literal != nil {
			addAlt(*primary.literal, primary.words)
		}
		for _, c := range sorted[1:] {
			addAlt(c.at, c.words)
			if c.literal != nil {
				addAlt(*c.literal, c.words)
			}
		}
		if len(alts) > 0 {
			p.draft.Alternatives[field] = alts
		}
	}
}

// detectionMethods are the words that say how an incident was found, in the order tried.
var detectionMethods = []struct {
	method string
	re     *regexp.Regexp
}{
	{"customer_report", regexp.MustCompile(`(?i)\bcustomers?(?:'|’)?\s+(?:reports?|reported|tickets?|complaints?)|\breported by (?:a |our |several |multiple )?(?:customers?|users?)|\bsupport tickets?|\buser reports?`)},
	{"synthetic_monitor", regexp.MustCompile(`(?i)\bsynthetic\b|\bcanary checks?|\bprobes?\b`)},
	{"automated_alert", regexp.MustCompile(`(?i)\balert(?:s|ing|ed)?\b|\bmonitor(?:s|ing)?\b|\bpag(?:ed|er)\b|\bon-?call\b`)},
	{"staff_report", regexp.MustCompile(`(?i)\b(?:an? )?(?:engineers?|employees?|staff|team members?)\s+(?:noticed|reported|spotted)`)},
}

var detectVerbRe = regexp.MustCompile(`(?i)\b(?:detected|detects|noticed|discovered|identified|caught|alerted)\s+(?:\S+\s+){0,8}?(?:via|by|through|from|thanks to|with)\b|\b(?:automated|synthetic)\s+(?:\w+\s+)?(?:detects|detected)\b`)

// detectWords is the cheap test before detectVerbRe runs.
var detectWords = []string{"detect", "notice", "discover", "identified", "caught", "alerted"}

// detectionMethod reads how the incident was found from the sentence that says so, in the
// Detection section when there is one.
func (p *parser) detectionMethod() {
	texts := []string{p.draft.Incident.Detection}
	for _, l := range p.lines {
		texts = append(texts, l.text)
	}
	for _, text := range texts {
		if !containsAny(asciiLower(text), detectWords) {
			continue
		}
		flat := strings.ReplaceAll(text, "\n", " ")
		for _, s := range sentences(flat) {
			sentence := strings.ReplaceAll(flat[s[0]:s[1]], "**", "")
			verb := detectVerbRe.FindStringIndex(sentence)
			if verb == nil || negationRe.MatchString(sentence[:verb[0]]) {
				continue
			}
			bestAt, method := -1, ""
			for _, dm := range detectionMethods {
				if loc := dm.re.FindStringIndex(sentence); loc != nil && (bestAt < 0 || loc[0] < bestAt) {
					bestAt, method = loc[0], dm.method
				}
			}
			if method != "" {
				p.draft.Incident.DetectionMethod = method
				p.draft.Evidence["detection_method"] = evidenceWords(sentence)
				return
			}
		}
	}
}

// customerToldUsRe is the detection that says itself how it came: a customer told us.
var customerToldUsRe = regexp.MustCompile(`(?i)\b(?:customers?|users?) (?:reached out|informed us|contacted us)\b`)

// detectionFromMilestone reads the method from the sentence the detection time was read from when
// no sentence said how it was found: "A customer reached out to inform us …" is a customer report.
func (p *parser) detectionFromMilestone() {
	if p.draft.Incident.DetectionMethod != "" {
		return
	}
	if words := p.draft.Evidence["detected_at"]; customerToldUsRe.MatchString(words) && !negationRe.MatchString(words[:customerToldUsRe.FindStringIndex(words)[0]]) {
		p.draft.Incident.DetectionMethod = "customer_report"
		p.draft.Evidence["detection_method"] = words
	}
}

// asciiLower lower-cases ASCII letters only, so byte offsets stay those of s.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func containsAny(s string, keys []string) bool {
	for _, k := range keys {
		if strings.Contains(s, k) {
			return true
		}
	}
	return false
}
