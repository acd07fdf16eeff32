package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// Account shows the signed-in user's password form and API tokens.
func (h *Handlers) Account(c echo.Context) error {
	return h.renderAccount(c, http.StatusOK, templates.AccountView{Flash: h.Sessions.PopString(c.Request().Context(), "flash")})
}

func (h *Handlers) renderAccount(c echo.Context, status int, v templates.AccountView) error {
	user := CurrentUser(c)
	tokens, err := h.Store.ListTokens(c.Request().Context(), user.ID)
	if err != nil {
		return err
	}
	feeds, err := h.Store.ListCalendarFeeds(c.Request().Context(), user.ID)
	if err != nil {
		return err
	}
	if v.LanguageRulesOff, err = h.Store.LanguageRulesOff(c.Request().Context(), user.ID); err != nil {
		return err
	}
	v.Page, v.User, v.Tokens, v.Feeds = templates.Page{Title: "Your account", Section: "account"}, user, tokens, feeds
	return render(c, status, templates.AccountPage(v))
}
