package models

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Finding is something missing or doubtful in a postmortem about to be published.
type Finding struct {
	Rule    string // one of the Rule… constants
	Field   string // the field or section it concerns, for a link to the editor
	Message string
}

// The completeness check's rules.
const (
	RuleNoDetection      = "no_detection_time"
	RuleNoImpactWindow   = "no_impact_window"
	RuleContradiction    = "contradicting_figures"
	RuleFollowUpOwner    = "follow_up_without_owner"
	RuleFollowUpDue      = "follow_up_without_due_date"
	RuleRequiredSection  = "required_section_empty"
	RuleInternalName     = "internal_name_in_public_text"
	RuleNearMissImpacted = "near_miss_with_impact"
)

// InternalName is a name that must not reach the public: an account's name or email, or a
// follow-up's owner.
type InternalName struct {
	Name string
	What string // "account", "follow-up owner"
}

// CheckCompleteness lists what is missing or doubtful in an incident's postmortem before it is
// published: no detection time, no impact window, contradicting figures, open follow-ups without
// an owner or a due date, the template's required sections left empty, and internal names in the
// text the public would read. A near miss had no customer impact, so its missing figures are not
// asked for. inc must have its timeline, windows, follow-ups and sections loaded; tpl may be nil.
// The findings come in the order above.
func CheckCompleteness(inc *Incident, tpl *PostmortemTemplate, internal []InternalName) []Finding {
	var out []Finding
	add := func(rule, field, format string, args ...any) {
		out = append(out, Finding{rule, field, fmt.Sprintf(format, args...)})
	}
	if inc.NearMiss {
		if len(inc.ImpactWindows) > 0 {
			add(RuleNearMissImpacted, "near_miss", "It is marked a near miss, yet it has %d impact %s: either customers were affected, or the windows are wrong.", len(inc.ImpactWindows), plural(len(inc.ImpactWindows), "window", "windows"))
		}
	} else {
		if inc.DetectedAt == nil {
			add(RuleNoDetection, "detected_at", "No detection time: nobody can tell how long it took to notice.")
		}
		if len(inc.ImpactWindows) == 0 {
			add(RuleNoImpactWindow, "impact_windows", "No impact window: the page cannot say when customers were affected. Mark it a near miss if they were not.")
		}
	}
	for _, c := range Contradictions(inc.Milestones(), inc.Timeline, inc.ImpactWindows) {
		if inc.NearMiss && c.Figure == FigureImpact {
			continue
		}
		add(RuleContradiction, c.Field, "%s", c.Message)
	}
	for _, f := range inc.FollowUps {
		if f.Status == "done" || f.Status == "wont_do" {
			continue
		}
		if strings.TrimSpace(f.Owner) == "" {
			add(RuleFollowUpOwner, "follow_ups", "The follow-up “%s” has no owner.", f.Title)
		}
		if f.DueOn == nil {
			add(RuleFollowUpDue, "follow_ups", "The follow-up “%s” has no due date.", f.Title)
		}
	}
	if tpl != nil {
		for _, sec := range tpl.Sections {
			if !sec.Required {
				continue
			}
			text := inc.CoreSectionText(sec.Slug)
			if !IsCoreSection(sec.Slug) {
				if s := inc.Section(sec.Slug); s != nil {
					text = s.Body
				}
			}
			if strings.TrimSpace(text) == "" {
				add(RuleRequiredSection, sectionField(sec.Slug), "The section “%s” of the template %s is empty.", sec.Heading, tpl.Name)
			}
		}
	}
	for _, hit := range internalNamesIn(PublicTexts(inc), internal) {
		add(RuleInternalName, hit.field, "The %s %s, a %s, appears in public text.", hit.where, quote(hit.name.Name), hit.name.What)
	}
	return out
}

// sectionField is the form field of a section: a core section's own name, else section_<slug>.
func sectionField(slug string) string {
	if IsCoreSection(slug) {
		return slug
	}
	return "section-" + slug
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func quote(s string) string { return "“" + s + "”" }

// PublicText is one piece of text the public reads of a published postmortem.
type PublicText struct {
	Field string // the form field it comes from
	Where string // how people call it: "title", "root cause", "follow-up", …
	Text  string
}

// PublicTexts lists the text a published postmortem shows: its public version's words, the
// public status updates, and the public extra sections.
func PublicTexts(inc *Incident) []PublicText {
	p := PublicVersionOf(inc)
	out := []PublicText{
		{"title", "title", p.Title}, {"summary", "summary", p.Summary},
		{"customer_impact", "customer impact", p.CustomerImpact}, {"root_cause", "root cause", p.RootCause},
		{"detection", "detection", p.Detection}, {"response", "response", p.Response},
	}
	for _, f := range p.FollowUps {
		out = append(out, PublicText{"follow_ups", "follow-up title", f.Title})
	}
	for _, ev := range inc.Timeline {
		if ev.Public && ev.Kind == "status_update" {
			out = append(out, PublicText{"timeline", "status update", ev.Body})
		}
	}
	for _, s := range p.Sections {
		out = append(out, PublicText{sectionField(s.Slug), "section " + quote(s.Heading), s.Body})
	}
	return out
}

type nameHit struct {
	field, where string
	name         InternalName
}

// internalNamesIn finds each internal name in the texts, as a whole word and whatever its case,
// once per name and text. Names shorter than three letters are too likely to be words.
func internalNamesIn(texts []PublicText, names []InternalName) []nameHit {
	var out []nameHit
	seen := map[string]bool{}
	for _, n := range names {
		name := strings.TrimSpace(n.Name)
		if utf8.RuneCountInString(name) < 3 || seen[strings.ToLower(name)] {
			continue
		}
		seen[strings.ToLower(name)] = true
		for _, t := range texts {
			if containsWord(t.Text, name) {
				out = append(out, nameHit{t.Field, t.Where, InternalName{name, n.What}})
			}
		}
	}
	return out
}

// containsWord tells whether text holds word, case-insensitively, not inside a longer word.
func containsWord(text, word string) bool {
	lower, w := strings.ToLower(text), strings.ToLower(word)
	for from := 0; from <= len(lower)-len(w); {
		i := strings.Index(lower[from:], w)
		if i < 0 {
			return false
		}
		start, end := from+i, from+i+len(w)
		before, _ := utf8.DecodeLastRuneInString(lower[:start])
		after, _ := utf8.DecodeRuneInString(lower[end:])
		if (start == 0 || !isWordRune(before)) && (end == len(lower) || !isWordRune(after)) {
			return true
		}
		from = start + 1
	}
	return false
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

// InternalNamesOf lists the names the completeness check keeps out of public text: each account's
// name and email, and the owners of the incident's follow-ups.
func InternalNamesOf(users []User, inc *Incident) []InternalName {
	var out []InternalName
	for _, u := range users {
		if u.Name != "" {
			out = append(out, InternalName{u.Name, "account name"})
		}
		out = append(out, InternalName{u.Email, "account email"})
	}
	for _, f := range inc.FollowUps {
		if f.Owner != "" && !slices.ContainsFunc(out, func(n InternalName) bool { return strings.EqualFold(n.Name, f.Owner) }) {
			out = append(out, InternalName{f.Owner, "follow-up owner"})
		}
	}
	return out
}
