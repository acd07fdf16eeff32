package handlers

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// IncidentDeleted is where deleting an incident lands: it is in the Trash until a given day, and
// an admin can restore it from here at once.
func (h *Handlers) IncidentDeleted(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	trashed, err := h.Store.TrashedIncidentByID(c.Request().Context(), id, time.Now())
	if err != nil {
		return storeError(err, "incident in the Trash")
	}
	return render(c, http.StatusOK, templates.DeletedPage(templates.DeletedView{
		Page: templates.Page{Title: "Deleted: " + trashed.Title, Section: "incidents"}, Incident: *trashed,
	}))
}
