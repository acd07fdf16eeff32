package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// MaintenanceDeleteConfirm asks before a maintenance is removed.
func (h *Handlers) MaintenanceDeleteConfirm(c echo.Context) error {
	view, err := h.maintenanceView(c)
	if err != nil {
		return err
	}
	id := itoa(view.Maintenance.ID)
	return render(c, http.StatusOK, templates.ConfirmPage(templates.ConfirmView{
		Page: templates.Page{Title: "Remove " + view.Maintenance.Title, Section: "maintenance"}, Question: "Remove the maintenance " + view.Maintenance.Title + "?",
		Consequence: "It disappears from the status page and its API, with its updates.", Action: "/maintenance/" + id + "/delete",
		Button: "Remove maintenance", Cancel: "/maintenance/" + id,
	}))
}

// MaintenanceDelete removes a maintenance and its updates.
func (h *Handlers) MaintenanceDelete(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if err := h.Store.DeleteMaintenance(c.Request().Context(), id); err != nil {
		return storeError(err, "maintenance")
	}
	return c.Redirect(http.StatusSeeOther, "/maintenance")
}
