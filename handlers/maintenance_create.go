package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// MaintenanceCreate schedules maintenance with its first update.
func (h *Handlers) MaintenanceCreate(c echo.Context) error {
	ctx := c.Request().Context()
	form, err := c.FormParams()
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, "The form could not be read.")
	}
	_, loc, err := h.maintenanceChoices(ctx)
	if err != nil {
		return err
	}
	values, in, errs := maintenanceForm(form, loc)
	first := models.MaintenanceUpdateInput{Status: values.Status, Body: values.Body}
	if len(errs) == 0 {
		m, err := h.Store.CreateMaintenance(ctx, in, first)
		if fe, ok := asFieldErrors(err); ok {
			errs = fe
		} else if err != nil {
			return storeError(err, "maintenance")
		} else {
			return seeOther(c, "/maintenance/"+itoa(m.ID))
		}
	} else {
		errs = append(errs, models.Validate(first)...)
	}
	view, err := h.maintenanceListView(c)
	if err != nil {
		return err
	}
	values.Errors = errs
	view.Form = values
	return render(c, http.StatusUnprocessableEntity, templates.MaintenanceListPage(view))
}
