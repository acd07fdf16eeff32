package handlers

import (
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"hindsight/models/language"
)

// LanguageRulesUpdate saves which wording-check rules the signed-in user sees: the ticked ones
// are on, every other rule is off. A value that names no rule is ignored, since no checkbox sends it.
func (h *Handlers) LanguageRulesUpdate(c echo.Context) error {
	form, err := c.FormParams()
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, "The form could not be read.")
	}
	on := form["on"]
	var off []string
	for _, rule := range language.Rules {
		if !slices.Contains(on, rule.ID) {
			off = append(off, rule.ID)
		}
	}
	ctx := c.Request().Context()
	if err := h.Store.SetLanguageRulesOff(ctx, CurrentUser(c).ID, off); err != nil {
		return err
	}
	msg := "Wording check saved: every rule is on."
	switch n := len(language.Rules) - len(off); {
	case n == 0:
		msg = "Wording check saved: every rule is off, so no wording is pointed out."
	case len(off) > 0:
		msg = "Wording check saved: " + itoa(int64(n)) + " of " + itoa(int64(len(language.Rules))) + " rules on."
	}
	h.Sessions.Put(ctx, "flash", msg)
	return c.Redirect(http.StatusSeeOther, "/account#language")
}
