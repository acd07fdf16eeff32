package handlers

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// TokenCreate makes an API token and shows it once, in this response only.
func (h *Handlers) TokenCreate(c echo.Context) error {
	name := strings.TrimSpace(c.FormValue("name"))
	var errs models.FieldErrors
	switch {
	case name == "":
		errs.Add("name", "Give the token a name that says where it is used.")
	case len(name) > 100:
		errs.Add("name", "Must be at most 100 characters.")
	}
	if len(errs) > 0 {
		return h.renderAccount(c, http.StatusUnprocessableEntity, templates.AccountView{TokenName: name, TokenErrors: errs})
	}
	secret, _, err := h.Store.CreateToken(c.Request().Context(), CurrentUser(c).ID, name)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return h.renderAccount(c, http.StatusCreated, templates.AccountView{NewToken: secret})
}
