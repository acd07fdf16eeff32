package models

import "strings"

// The debrief's question bank, after Etsy's Debriefing Facilitation Guide (2016): questions that
// ask how people saw the situation at the time, not why they did not see what is plain now. Each
// group is keyed to what the timeline holds, so the facilitator asks about the entries that are
// there, beside them.

// QuestionGroup is a set of questions about one kind of moment in the incident.
type QuestionGroup struct {
	Key       string
	Heading   string
	Questions []string
	// Entries are the timeline entries the questions are about, filled by DebriefQuestions.
	Entries []TimelineEvent
}

// questionBank is the guide's questions by the moment they ask about, in the order a debrief
// walks an incident.
var questionBank = []QuestionGroup{
	{Key: "alert", Heading: "Alerts", Questions: []string{
		"What did the alert tell you? What did you expect it to tell you?",
		"Was this alert one you had seen before? What did it usually mean?",
		"What did you look at first, and what made you look there?",
	}},
	{Key: "detection", Heading: "Detection", Questions: []string{
		"How did you first notice something was wrong? Who else knew by then?",
		"What signals were there before anyone noticed? Where would you have had to look to see them?",
	}},
	{Key: "escalation", Heading: "Escalation and help", Questions: []string{
		"How did you decide to bring others in? How did you know whom to call?",
		"What did the people joining need to know, and how did they find it out?",
	}},
	{Key: "action", Heading: "Actions and mitigation", Questions: []string{
		"What options did you see? What made this one look right at the time?",
		"What did you expect to happen when you did it? What happened?",
		"What would have made you stop or try something else?",
	}},
	{Key: "change", Heading: "Changes", Questions: []string{
		"What did the change set out to do? How was it tested, and what did that show?",
		"What told you the change was safe to go ahead with?",
	}},
	{Key: "status_update", Heading: "Communication", Questions: []string{
		"How did you decide what to tell customers, and when?",
		"What did you know at that point that you could not say yet?",
	}},
	{Key: "general", Heading: "Throughout", Questions: []string{
		"What was going on around you at the time: other work, pressure, time of day?",
		"What surprised you?",
		"What would you want someone in your place next time to know?",
		"Where did we get lucky?",
	}},
}

// words that mark an entry as being about a moment the bank asks about, beside its kind.
var questionWords = map[string][]string{
	"detection":  {"noticed", "detected", "reported", "paged", "first saw", "spotted", "customer report"},
	"escalation": {"escalat", "paged", "called in", "joined", "incident commander", "declared", "on-call", "on call"},
	"action":     {"mitigat", "rolled back", "rollback", "restart", "failover", "failed over", "disabled", "scaled", "reverted"},
}

// DebriefQuestions returns the question groups that apply to the incident's timeline, each with
// the entries it asks about; the closing group applies always.
func DebriefQuestions(timeline []TimelineEvent) []QuestionGroup {
	var out []QuestionGroup
	for _, g := range questionBank {
		group := g
		group.Entries = nil
		for _, ev := range timeline {
			if matchesGroup(g.Key, ev) {
				group.Entries = append(group.Entries, ev)
			}
		}
		if len(group.Entries) > 0 || g.Key == "general" {
			out = append(out, group)
		}
	}
	return out
}

func matchesGroup(key string, ev TimelineEvent) bool {
	if ev.Kind == key {
		return true
	}
	body := strings.ToLower(ev.Body)
	for _, w := range questionWords[key] {
		if strings.Contains(body, w) {
			return true
		}
	}
	return false
}
