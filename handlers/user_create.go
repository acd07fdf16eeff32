package handlers

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// UserCreate adds an account with a first password the admin passes on.
func (h *Handlers) UserCreate(c echo.Context) error {
	form, err := formValues(c)
	if err != nil {
		return err
	}
	in, errs := newAccountInput(form, form.Get("email"), form.Get("role"))
	if len(errs) == 0 {
		_, err = h.Store.CreateUser(c.Request().Context(), in)
		if errors.Is(err, models.ErrEmailTaken) {
			errs.Add("email", "An account with this email exists.")
		} else if err != nil {
			return err
		}
	}
	if len(errs) > 0 {
		return h.renderUsers(c, http.StatusUnprocessableEntity, templates.UsersView{Email: in.Email, Name: in.Name, Role: in.Role, Errors: errs})
	}
	h.Sessions.Put(c.Request().Context(), "flash", "Added "+models.NormalizeEmail(in.Email)+".")
	return seeOther(c, "/admin/users")
}
