package handlers

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// ComponentSave adds a component (POST /admin/components) or changes one
// (POST /admin/components/{id}); on bad input the form comes back with the message beside the
// field and nothing saved.
func (h *Handlers) ComponentSave(c echo.Context) error {
	var id int64
	if c.Param("id") != "" {
		var err error
		if id, err = pathID(c, "id"); err != nil {
			return err
		}
	}
	form, err := c.FormParams()
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, "The form could not be read.")
	}
	in := models.ComponentInput{
		Name: form.Get("name"), Description: form.Get("description"), IsGroup: checked(form, "group"),
		OnlyShowIfDegraded: checked(form, "only_show_if_degraded"), Showcase: checked(form, "showcase"),
		StartDate: form.Get("start_date"), Services: splitList(form.Get("services")),
	}
	var errs models.FieldErrors
	if raw := strings.TrimSpace(form.Get("position")); raw != "" {
		if in.Position, err = strconv.Atoi(raw); err != nil {
			errs.Add("position", "A whole number, such as 3.")
		}
	}
	if raw := form.Get("group_id"); raw != "" {
		if in.GroupID, err = strconv.ParseInt(raw, 10, 64); err != nil {
			errs.Add("group_id", "Choose one of the groups listed.")
		}
	}
	if len(errs) == 0 {
		_, err := h.Store.SaveComponent(c.Request().Context(), id, in)
		if fe, ok := asFieldErrors(err); ok {
			errs = fe
		} else if err != nil {
			return storeError(err, "component")
		} else {
			return seeOther(c, "/admin/components?saved=1")
		}
	}
	view, err := h.componentsView(c.Request().Context())
	if err != nil {
		return err
	}
	view.EditID, view.Values, view.Errors = id, in, errs
	return render(c, http.StatusUnprocessableEntity, templates.ComponentsPage(view))
}
