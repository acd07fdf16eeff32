// Package language checks postmortem narrative for wording that judges the past from hindsight:
// counterfactuals, blame, "why" questions and a single root cause stated as a person's mistake.
//
// It only points wording out, with a reason and a reframing; it never decides whether a text may
// be saved or published. It uses the standard library only.
package language

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Finding is one piece of wording a rule points out.
//
// Start and End are offsets in characters (Unicode code points, Go runes) into the text given to
// Check, End exclusive, so that a client counting characters, not bytes, finds the same words:
// []rune(text)[Start:End] is Match.
type Finding struct {
	Rule       string `json:"rule"`
	Start      int    `json:"start"`
	End        int    `json:"end"`
	Match      string `json:"match"`
	Message    string `json:"message"`
	Suggestion string `json:"suggestion"`
}

// Rule is one check, switched off by its ID.
type Rule struct {
	ID         string
	Title      string // a finding's label: "Counterfactual"
	Name       string // how the account page names it, with examples
	Message    string // why the wording hurts learning
	Suggestion string // a reframing
}

// Rule IDs.
const (
	Counterfactual        = "counterfactual"
	Blame                 = "blame"
	WhyQuestion           = "why-question"
	SingleRootCausePerson = "single-root-cause-person"
)

// Rules lists every rule in the order findings of the same place are reported.
var Rules = []Rule{
	{
		ID:         Counterfactual,
		Title:      "Counterfactual",
		Name:       "Counterfactuals (“should have”, “could have”, “failed to”)",
		Message:    "Counterfactual wording describes what did not happen. It judges the past by what we know now, and hides what people saw and why their actions made sense then.",
		Suggestion: "Describe what happened and what the people involved saw at the time. Ask: what made this look right at the time?",
	},
	{
		ID:         Blame,
		Title:      "Blame",
		Name:       "Blame (“human error”, “careless”, “did not follow”)",
		Message:    "Blaming words end the inquiry at a person. People tell the whole story only when the review looks at the conditions that made the action possible, not at who to fault.",
		Suggestion: "Describe what the person did and what they saw, and name the conditions (tooling, defaults, time pressure, missing guard rails) that let the action have this effect.",
	},
	{
		ID:         WhyQuestion,
		Title:      "“Why” question",
		Name:       "“Why did …?” questions",
		Message:    "“Why” questions ask people to justify themselves and draw defensive answers; Etsy’s Debriefing Facilitation Guide asks “how” and “what” questions instead.",
		Suggestion: "Ask “how” or “what”: “How did this look at the time?”, “What did you expect to happen?”, “What made this option look right?”",
	},
	{
		ID:         SingleRootCausePerson,
		Title:      "A person as the root cause",
		Name:       "A single root cause stated as a person’s mistake",
		Message:    "Naming one person’s mistake as the root cause stops at the first story. Incidents have several contributing factors, and the ones that made the mistake easy and its effect large are what the team can change.",
		Suggestion: "List the contributing factors: what made the action easy to take, hard to see as risky, and able to spread. Describe what the person saw and did.",
	},
}

// Known tells whether id names a rule.
func Known(id string) bool {
	return slices.ContainsFunc(Rules, func(r Rule) bool { return r.ID == id })
}

// RuleByID returns the rule with that id; ok is false for an unknown id.
func RuleByID(id string) (Rule, bool) {
	for _, r := range Rules {
		if r.ID == id {
			return r, true
		}
	}
	return Rule{}, false
}

// pattern is one way a rule's wording shows. The finding covers group 1 when the expression has
// one (the words around it only decide whether it counts), else the whole match.
type pattern struct {
	rule string
	// words are lower-case strings one of which a sentence must hold for re to be tried on it:
	// most sentences hold none, and trying thirty expressions on each was the whole cost.
	words []string
	re    *regexp.Regexp
	// unlessBefore, when set, drops a match whose sentence up to it matches: "Users would have
	// experienced timeouts" reports what happened, hedged, not what should have.
	unlessBefore *regexp.Regexp
	// unlessAfter drops a match the text after it matches: "if only one region" is a condition.
	unlessAfter *regexp.Regexp
	// atClauseStart keeps a match only where a clause begins: "Had we known" is counterfactual,
	// "What had they seen?" is the question to ask.
	atClauseStart bool
}

// Words that name a person or a role, for blame that points at someone. "User" and "customer"
// are left out: a customer's request is not the team's mistake, and flagging it would be noise.
const person = `(?:engineers?|developers?|devs?|operators?|admins?|administrators?|sysadmins?|on-?call(?:ers?)?(?:\s+engineers?)?|sres?|dbas?|employees?|staff(?:\s+members?)?|team\s+members?|contractors?|interns?|technicians?|managers?|reviewers?|responders?|persons?|people|someone|somebody|human|humans|he|she|his|her|colleagues?|teammates?)`

// Verbs of attention and care that only a person "fails to" do; "the job failed to start" or
// "the consumer failed to acknowledge" describes a system and is left alone.
const personalFail = `(?:notice|see|spot|catch|check|double-check|verify|test|review|realize|realise|recognize|recognise|understand|anticipate|consider|foresee|account\s+for|ensure|escalate|communicate|inform|tell|mention|coordinate|plan|prepare|think|ask|confirm|investigate|remember|heed|pay\s+attention)`

// What a named person did, when a capitalised word might also be a system ("caused by Redis
// running out of memory" is not a person's mistake; "caused by Dana forgetting" is).
const nameMistake = `(?:forg[eo]t\w*|neglect\w*|mistake\w*|mistaken\w*|accidental\w*|careless\w*|typo\w*|oversight|overlook\w*|misread\w*|mistyp\w*|fat[- ]finger\w*|not\s+(?:follow|check|notic|read|verify|test|review)\w*|fail\w*\s+to\s+` + personalFail + `)`

// What a person in a role did wrong, broader: a role is never a system.
const roleMistake = `(?:` + nameMistake + `|not\b|fail\w*|miss\w*|error|mistake|skipp\w*|ignor\w*|didn't|did\s+not|ran\b|runn\w*|push\w*|deploy\w*|typ\w*|delet\w*|misconfig\w*|made\b|chang\w*)`

const determiner = `(?:(?:a|an|the|our|one|their|its)\s+)?`

var patterns = []pattern{
	// Counterfactuals. "Could not have" and "couldn't have" are left alone: "we could not have
	// known" argues against hindsight.
	{rule: Counterfactual, words: []string{"should", "could", "ought"}, re: re(`\b(?:should|ought\s+to)\s+(?:not\s+)?have\b|\bshouldn't\s+have\b|\bcould\s+have\b|\b(?:should|could)'ve\b`)},
	{rule: Counterfactual, words: []string{"would"}, re: re(`\bwould\s+(?:not\s+)?have\b|\bwouldn't\s+have\b|\bwould've\b`),
		unlessBefore: re(`\b(?:users?|customers?|clients?|visitors?|people|anyone|everyone|requests?|traffic)\b(?:[\s,]+[^\s.!?]+){0,8}[\s,]*$`)},
	{rule: Counterfactual, words: []string{"failed"}, re: re(`\b(failed\s+to)\s+` + personalFail + `\b`)},
	{rule: Counterfactual, words: []string{"failed"}, re: re(`\b(?:we|they|i|you|nobody|no\s+one|the\s+team|` + person + `)\s+(failed\s+to)\b`)},
	{rule: Counterfactual, words: []string{"only"}, re: re(`\bif\s+only\b`),
		unlessAfter: re(`^[\s*_]+(?:one|two|three|\d|a\s+(?:few|single|small|fraction|subset|handful|minority)|some|part|half|few|partially|small|read)\b`)},
	{rule: Counterfactual, words: []string{"had"}, re: re(`\bhad\s+(?:we|they|i|you|he|she|someone|anyone|the\s+team|the\s+engineer|the\s+on-?call(?:\s+engineer)?)\b`), atClauseStart: true},
	{rule: Counterfactual, words: []string{"had"}, re: re(`\bif\s+(?:we|they|i|you|he|she|someone|anyone|the\s+team|the\s+engineer|the\s+on-?call(?:\s+engineer)?)\s+(?:had|hadn't)\b`)},

	// Blame.
	{rule: Blame, words: []string{"human", "operator", "pilot"}, re: re(`\b(?:human|operator|pilot)\s+(?:errors?|mistakes?)\b`)},
	{rule: Blame, words: []string{"careless"}, re: re(`\bcareless(?:ly|ness)?\b`)},
	{rule: Blame, words: []string{"negligen"}, re: re(`\bnegligen(?:ce|t|tly)\b`)},
	{rule: Blame, words: []string{"follow"}, re: re(`\b(?:did\s+not|didn't|failed\s+to|refused\s+to|chose\s+not\s+to)\s+follow\b`)},
	{rule: Blame, words: []string{"neglected"}, re: re(`\bneglected\s+to\b`)},
	{rule: Blame, words: []string{"slopp", "incompet", "reckless", "laziness", "inattent", "complacen"}, re: re(`\b(?:sloppy|sloppily|sloppiness|incompetent|incompetence|incompetently|reckless(?:ly|ness)?|laziness|inattentive|inattention|complacent|complacency)\b`)},
	{rule: Blame, words: []string{"mistake"}, re: re(`\bmistakes?\s+(?:made\s+)?by\s+` + determiner + `[\w'-]+`)},
	{rule: Blame, words: []string{"his", "her"}, re: re(`\b(?:his|her)\s+(?:mistake|error|fault|carelessness|oversight)\b`)},
	{rule: Blame, words: []string{"bother"}, re: re(`\b(?:did\s+not|didn't)\s+bother\b`)},
	{rule: Blame, words: []string{"judg"}, re: re(`\b(?:bad|poor)\s+judg(?:e)?ment\b`)},
	{rule: Blame, words: []string{"finger"}, re: re(`\bfat[- ]finger(?:ed|ing|s)?\b`)},

	// "Why did …?" questions: a "why" followed by a verb that makes it a question, up to the
	// question mark in the same sentence ("v2.3" keeps it going, ". " ends it).
	{rule: WhyQuestion, words: []string{"why"}, re: re(`\bwhy\s+(?:did|didn't|do|does|don't|doesn't|was|wasn't|were|weren't|is|isn't|are|aren't|had|hadn't|has|hasn't|have|haven't|would|wouldn't|could|couldn't|should|shouldn't|will|won't|can|can't)\b(?:[^.!?\n]|\.\S)*\?`)},

	// A single root cause stated as a person's mistake.
	{rule: SingleRootCausePerson, words: []string{"cause"}, re: re(`\b(?:(?:root|primary|main|underlying|real|only|single)\s+cause|cause\s+of\s+(?:the|this)\s+(?:incident|outage|issue|problem|failure|disruption))[\s*_]*(?:was|is|:|=|–|—|-)[\s*_]*(?:that\s+|simply\s+|just\s+)?` + determiner +
		`(?:(?:human|operator|manual)\s+(?:error|mistake)|` + person + `(?:'s)?\b|(?-i:\p{Lu}\p{Ll}+)(?:'s)?\s+` + nameMistake + `)`)},
	{rule: SingleRootCausePerson, words: []string{"caused"}, re: re(`\bcaused\s+by\s+` + determiner + `(?:` + person + `(?:'s)?\s+(?:who\s+|that\s+)?` + roleMistake +
		`|(?-i:\p{Lu}\p{Ll}+)(?:'s)?\s+(?:who\s+)?` + nameMistake + `)\b`)},
}

func re(expr string) *regexp.Regexp { return regexp.MustCompile(`(?i)` + expr) }

// Check returns the findings of every rule not in disabled, in the order they appear in text (by
// start, then rule order). Code in backticks (spans and fenced blocks) is not checked: a log line
// or a command is quoted, not written. An empty text has no findings.
func Check(text string, disabled map[string]bool) []Finding {
	findings := []Finding{}
	if strings.TrimSpace(text) == "" {
		return findings
	}
	norm, runeAt := normalize(text)
	original := []rune(text)
	type key struct {
		rule       string
		start, end int
	}
	seen := map[key]bool{}
	for _, span := range sentences(norm) {
		chunk := norm[span[0]:span[1]]
		lower := asciiLower(chunk)
		for _, p := range patterns {
			if disabled[p.rule] || !slices.ContainsFunc(p.words, func(w string) bool { return strings.Contains(lower, w) }) {
				continue
			}
			for _, m := range p.re.FindAllStringSubmatchIndex(chunk, -1) {
				from, to := m[0], m[1]
				if len(m) >= 4 && m[2] >= 0 {
					from, to = m[2], m[3]
				}
				before := sentenceBefore(chunk, from)
				if p.unlessBefore != nil && p.unlessBefore.MatchString(before[max(0, len(before)-unlessReach):]) {
					continue
				}
				if p.unlessAfter != nil && p.unlessAfter.MatchString(chunk[to:min(len(chunk), to+lookBehind)]) {
					continue
				}
				if p.atClauseStart && !clauseStart(before) {
					continue
				}
				start, end := runeAt[span[0]+from], runeAt[span[0]+to]
				k := key{p.rule, start, end}
				if seen[k] || start == end {
					continue
				}
				seen[k] = true
				rule, _ := RuleByID(p.rule)
				findings = append(findings, Finding{
					Rule: p.rule, Start: start, End: end, Match: string(original[start:end]),
					Message: rule.Message, Suggestion: rule.Suggestion,
				})
			}
		}
	}
	order := map[string]int{}
	for n, r := range Rules {
		order[r.ID] = n
	}
	slices.SortStableFunc(findings, func(a, b Finding) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		if a.Rule != b.Rule {
			return order[a.Rule] - order[b.Rule]
		}
		return a.End - b.End
	})
	return findings
}

// maxSentence is the longest stretch the rules are tried on at once, in bytes: a "sentence" with
// no full stop or blank line for this long is cut at the next space.
const maxSentence = 4000

// sentences splits s into the byte spans the rules are tried on: sentences, ended by ".", "!" or
// "?" before a space, or by a blank line. No rule's wording crosses a sentence.
func sentences(s string) [][2]int {
	var out [][2]int
	start := 0
	for n := 0; n < len(s); n++ {
		end := false
		switch c := s[n]; {
		case (c == '.' || c == '!' || c == '?') && (n+1 == len(s) || s[n+1] == ' ' || s[n+1] == '\n'):
			end = true
		case c == '\n' && n+1 < len(s) && s[n+1] == '\n':
			end = true
		case n-start >= maxSentence && (c == ' ' || c == '\n'):
			end = true
		}
		// A run without spaces this long is no prose: cut it where a character starts.
		if end || n+1-start >= 2*maxSentence && n+1 < len(s) && utf8.RuneStart(s[n+1]) {
			out = append(out, [2]int{start, n + 1})
			start = n + 1
		}
	}
	if start < len(s) {
		out = append(out, [2]int{start, len(s)})
	}
	return out
}

// asciiLower lower-cases ASCII letters only, so byte offsets stay where they were.
func asciiLower(s string) string {
	b := []byte(s)
	for n, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[n] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// unlessReach is how much of the sentence before a match unlessBefore reads, in bytes: enough for
// its eight words, and little enough that a megabyte of matches stays cheap.
const unlessReach = 100

// lookBehind bounds how far back a match's sentence is read: the rules that look there need a
// few words, and an unbounded look on a megabyte without a full stop would read it once a match.
const lookBehind = 240

// sentenceBefore is the text of the sentence that ends at byte offset at, at most lookBehind bytes.
func sentenceBefore(s string, at int) string {
	before := s[max(0, at-lookBehind):at]
	if n := strings.LastIndexAny(before, ".!?\n"); n >= 0 {
		before = before[n+1:]
	}
	return before
}

// clauseStart tells whether the sentence so far ends where a clause begins: nothing but Markdown
// marks, or a comma, semicolon, colon or dash.
func clauseStart(before string) bool {
	before = strings.TrimRight(before, " \t*_>#-")
	before = strings.TrimLeft(before, " \t*_>#-+0123456789")
	if before == "" {
		return true
	}
	return strings.HasSuffix(before, ",") || strings.HasSuffix(before, ";") || strings.HasSuffix(before, ":") ||
		strings.HasSuffix(before, "—") || strings.HasSuffix(before, "–")
}

// normalize returns text with curly apostrophes made straight and code blanked out, rune for rune,
// and for each byte offset of the result (and its end) the rune offset in text.
func normalize(text string) (string, []int) {
	runes := []rune(text)
	masked := maskCode(runes)
	var b strings.Builder
	b.Grow(len(text))
	runeAt := make([]int, 0, len(text)+1)
	for n, r := range masked {
		switch r {
		case '\u2019', '\u2018', '\u02BC', '\u2032':
			r = '\''
		case '\u2010', '\u2011':
			r = '-'
		case '\u00A0':
			r = ' '
		}
		if r == utf8.RuneError || r == '_' && emphasis(masked, n) {
			r = ' '
		}
		for range utf8.RuneLen(r) {
			runeAt = append(runeAt, n)
		}
		b.WriteRune(r)
	}
	runeAt = append(runeAt, len(masked))
	return b.String(), runeAt
}

// emphasis tells whether the underscore at n marks Markdown emphasis (at a word's edge), not a
// part of an identifier such as should_have_retried, which must stay one word.
func emphasis(runes []rune, n int) bool {
	inWord := func(m int) bool {
		return m >= 0 && m < len(runes) && (unicode.IsLetter(runes[m]) || unicode.IsDigit(runes[m]))
	}
	prev, next := n-1, n+1
	for prev >= 0 && runes[prev] == '_' {
		prev--
	}
	for next < len(runes) && runes[next] == '_' {
		next++
	}
	return !inWord(prev) || !inWord(next)
}

// maskCode replaces the inside of Markdown code spans and fenced code blocks with spaces, keeping
// the rune count, so nothing inside them is reported.
func maskCode(runes []rune) []rune {
	out := slices.Clone(runes)
	blank := func(from, to int) {
		for n := from; n < to; n++ {
			if out[n] != '\n' {
				out[n] = ' '
			}
		}
	}
	// Fenced blocks: a line starting with ``` or ~~~ up to the next such line.
	lineStart, fenceStart := 0, -1
	var fence []rune
	for n := 0; n <= len(runes); n++ {
		if n < len(runes) && runes[n] != '\n' {
			continue
		}
		line := strings.TrimLeft(string(runes[lineStart:n]), " ")
		switch {
		case fenceStart < 0 && (strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~")):
			fenceStart, fence = lineStart, []rune(line[:3])
		case fenceStart >= 0 && strings.HasPrefix(line, string(fence)):
			blank(fenceStart, n)
			fenceStart = -1
		}
		lineStart = n + 1
	}
	if fenceStart >= 0 {
		blank(fenceStart, len(runes))
	}
	// Code spans: a run of backticks up to the next run of the same length. The runs are listed
	// once, by length, so finding each closing run never reads the text again.
	type run struct{ at, n int }
	var runs []run
	for n := 0; n < len(out); {
		if out[n] != '`' {
			n++
			continue
		}
		k := 0
		for n+k < len(out) && out[n+k] == '`' {
			k++
		}
		runs = append(runs, run{n, k})
		n += k
	}
	byLength := map[int][]int{} // run length → indexes into runs, in order
	for i, r := range runs {
		byLength[r.n] = append(byLength[r.n], i)
	}
	next := map[int]int{} // run length → how many of byLength's entries are behind us
	covered := 0          // text before this offset is inside a span already
	for i, r := range runs {
		if r.at < covered {
			continue
		}
		same := byLength[r.n]
		for next[r.n] < len(same) && same[next[r.n]] <= i {
			next[r.n]++
		}
		if next[r.n] == len(same) {
			continue // no closing run: the backticks are literal
		}
		closing := runs[same[next[r.n]]]
		next[r.n]++
		blank(r.at, closing.at+closing.n)
		covered = closing.at + closing.n
	}
	return out
}
