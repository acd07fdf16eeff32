package templates

import (
	"testing"

	"hindsight/models/language"
)

// TestLanguageSectionExcerpts: each finding is shown with the words around it, cut at a word with
// an ellipsis when the line goes on, and not past a line break.
func TestLanguageSectionExcerpts(t *testing.T) {
	text := "## Response\n- It was slow. On the second day of the incident, the team on call should have paged the database owners much sooner than it did, and human error.\nNext line. And human error again. Then more."
	sec := NewLanguageSection("response", "Response", text, language.Check(text, nil))
	if len(sec.Groups) != 2 || sec.Groups[0].Rule.ID != language.Counterfactual || sec.Groups[1].Rule.ID != language.Blame {
		t.Fatalf("groups = %+v", sec.Groups)
	}
	want := LanguageExcerpt{Before: "…day of the incident, the team on call ", Match: "should have", After: " paged the database owners much sooner…"}
	if got := sec.Groups[0].Excerpts[0]; got != want {
		t.Errorf("excerpt = %+v\nwant      %+v", got, want)
	}
	if got := sec.Groups[1].Excerpts[0]; got.After != "." || got.Match != "human error" {
		t.Errorf("excerpt at the line's end = %+v", got)
	}
	if got := sec.Groups[1].Excerpts[1]; got != (LanguageExcerpt{Before: "And ", Match: "human error", After: " again."}) {
		t.Errorf("excerpt inside a sentence = %+v", got)
	}
	if got := NewLanguageSection("lessons", "Lessons", "", nil); len(got.Groups) != 0 {
		t.Errorf("empty text has groups: %+v", got.Groups)
	}
}
