package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// MaintenanceUpdate changes a maintenance's title, schedule, components and public flag.
func (h *Handlers) MaintenanceUpdate(c echo.Context) error {
	view, err := h.maintenanceView(c)
	if err != nil {
		return err
	}
	form, err := c.FormParams()
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, "The form could not be read.")
	}
	values, in, errs := maintenanceForm(form, view.Location)
	if len(errs) == 0 {
		err := h.Store.UpdateMaintenance(c.Request().Context(), view.Maintenance.ID, in)
		if fe, ok := asFieldErrors(err); ok {
			errs = fe
		} else if err != nil {
			return storeError(err, "maintenance")
		} else {
			return seeOther(c, "/maintenance/"+itoa(view.Maintenance.ID))
		}
	}
	values.Errors = errs
	view.Form = values
	view.Update = templates.MaintenanceForm{Status: nextMaintenanceStatus(view.Maintenance.Status)}
	return render(c, http.StatusUnprocessableEntity, templates.MaintenancePage(view))
}

// MaintenancePost posts an update on a maintenance; its status becomes the maintenance's.
func (h *Handlers) MaintenancePost(c echo.Context) error {
	view, err := h.maintenanceView(c)
	if err != nil {
		return err
	}
	u := models.MaintenanceUpdateInput{Status: c.FormValue("status"), Body: c.FormValue("body")}
	err = h.Store.PostMaintenanceUpdate(c.Request().Context(), view.Maintenance.ID, u)
	if fe, ok := asFieldErrors(err); ok {
		m := view.Maintenance
		view.Form = templates.MaintenanceForm{
			Title: m.Title, For: templates.LocalInput(&m.ScheduledFor, view.Location), Until: templates.LocalInput(&m.ScheduledUntil, view.Location),
			Public: m.Public, Components: m.ComponentIDs(),
		}
		view.Update = templates.MaintenanceForm{Status: u.Status, Body: u.Body, Errors: fe}
		return render(c, http.StatusUnprocessableEntity, templates.MaintenancePage(view))
	}
	if err != nil {
		return storeError(err, "maintenance")
	}
	return seeOther(c, "/maintenance/"+itoa(view.Maintenance.ID))
}
