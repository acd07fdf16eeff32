package handlers

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// TrashList shows the incidents deleted in the last models.TrashDays days, with who deleted each
// and when, for an admin to restore.
func (h *Handlers) TrashList(c echo.Context) error {
	ctx := c.Request().Context()
	list, err := h.Store.ListTrash(ctx, time.Now())
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.TrashPage(templates.TrashView{
		Page:      templates.Page{Title: "Trash", Section: "trash"},
		Incidents: list, Flash: h.Sessions.PopString(ctx, "flash"),
	}))
}
