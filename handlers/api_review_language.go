package handlers

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/models/language"
	"hindsight/templates"
)

// apiLanguageInput is the body of POST /api/v1/review/language. Disabled, when absent, is the
// signed-in user's own choice from the account page; when present, even empty, it is used as is.
type apiLanguageInput struct {
	Text     string    `json:"text"`
	Disabled *[]string `json:"disabled"`
}

// APIReviewLanguage answers POST /api/v1/review/language: the wording check's findings for a
// text, with offsets in characters (Unicode code points). It reads and writes nothing else.
func (h *Handlers) APIReviewLanguage(c echo.Context) error {
	var body apiLanguageInput
	errs, err := decodeJSON(c, &body)
	if err != nil {
		return err
	}
	if len(errs) > 0 {
		return invalid(c, errs)
	}
	var disabled map[string]bool
	if body.Disabled != nil {
		disabled = map[string]bool{}
		for _, id := range *body.Disabled {
			if !language.Known(id) {
				errs.Add("disabled", fmt.Sprintf("There is no rule %q; the rules are: %s.", id, ruleIDs()))
				continue
			}
			disabled[id] = true
		}
		if len(errs) > 0 {
			return invalid(c, errs)
		}
	} else if disabled, err = h.languageRulesOff(c); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"findings": language.Check(body.Text, disabled)})
}

// languageRulesOff is the signed-in user's switched-off rules.
func (h *Handlers) languageRulesOff(c echo.Context) (map[string]bool, error) {
	user := CurrentUser(c)
	if user == nil {
		return map[string]bool{}, nil
	}
	return h.Store.LanguageRulesOff(c.Request().Context(), user.ID)
}

func ruleIDs() string {
	out := ""
	for n, r := range language.Rules {
		if n > 0 {
			out += ", "
		}
		out += r.ID
	}
	return out
}

// narrativeReview is the wording check of an incident's summary and narrative sections, with the
// signed-in user's rules, for the pages that show it beside the text.
func (h *Handlers) narrativeReview(c echo.Context, v templates.IncidentFormValues) (templates.LanguageReview, error) {
	off, err := h.languageRulesOff(c)
	if err != nil {
		return templates.LanguageReview{}, err
	}
	var review templates.LanguageReview
	for _, rule := range language.Rules {
		if off[rule.ID] {
			review.Off = append(review.Off, rule)
		}
	}
	for _, s := range []struct{ field, label, text string }{
		{"summary", "Summary", v.Summary},
		{"customer_impact", "Customer impact", v.CustomerImpact},
		{"root_cause", "Root cause", v.RootCause},
		{"trigger", "Trigger", v.Trigger},
		{"detection", "Detection", v.Detection},
		{"response", "Response", v.Response},
		{"lessons", "Lessons", v.Lessons},
	} {
		review.Sections = append(review.Sections, templates.NewLanguageSection(s.field, s.label, s.text, language.Check(s.text, off)))
	}
	return review, nil
}
