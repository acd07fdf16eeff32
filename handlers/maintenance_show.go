package handlers

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// MaintenanceShow shows one maintenance with its updates and, for a responder, the forms to
// change it and to post an update.
func (h *Handlers) MaintenanceShow(c echo.Context) error {
	view, err := h.maintenanceView(c)
	if err != nil {
		return err
	}
	m := view.Maintenance
	view.Form = templates.MaintenanceForm{
		Title: m.Title, For: templates.LocalInput(&m.ScheduledFor, view.Location), Until: templates.LocalInput(&m.ScheduledUntil, view.Location),
		Public: m.Public, Components: m.ComponentIDs(),
	}
	view.Update = templates.MaintenanceForm{Status: nextMaintenanceStatus(m.Status)}
	return render(c, http.StatusOK, templates.MaintenancePage(view))
}

func (h *Handlers) maintenanceView(c echo.Context) (templates.MaintenanceView, error) {
	id, err := pathID(c, "id")
	if err != nil {
		return templates.MaintenanceView{}, err
	}
	ctx := c.Request().Context()
	m, err := h.Store.Maintenance(ctx, id)
	if err != nil {
		return templates.MaintenanceView{}, storeError(err, "maintenance")
	}
	components, loc, err := h.maintenanceChoices(ctx)
	if err != nil {
		return templates.MaintenanceView{}, err
	}
	return templates.MaintenanceView{
		Page: templates.Page{Title: m.Title, Section: "maintenance"}, Maintenance: *m, Components: components,
		Location: loc, Now: time.Now(), CanEdit: CurrentUser(c).Can(models.RoleResponder),
	}, nil
}

// nextMaintenanceStatus is the status the update form offers first: the step after the current.
func nextMaintenanceStatus(status string) string {
	switch status {
	case models.MaintenanceScheduled:
		return models.MaintenanceInProgress
	case models.MaintenanceInProgress:
		return models.MaintenanceVerifying
	}
	return models.MaintenanceCompleted
}
