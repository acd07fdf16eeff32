package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// UserList shows every account to an admin, with the form to add one.
func (h *Handlers) UserList(c echo.Context) error {
	return h.renderUsers(c, http.StatusOK, templates.UsersView{Role: "responder", Flash: h.Sessions.PopString(c.Request().Context(), "flash")})
}

func (h *Handlers) renderUsers(c echo.Context, status int, v templates.UsersView) error {
	users, err := h.Store.ListUsers(c.Request().Context())
	if err != nil {
		return err
	}
	v.Page, v.Users = templates.Page{Title: "Users", Section: "users"}, users
	return render(c, status, templates.UsersPage(v))
}
