package handlers

import (
	"errors"
	"strconv"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// childFormFailed shows the incident page again with a timeline, window or follow-up form that
// did not save, filled with what the user typed and the reason beside each field.
func (h *Handlers) childFormFailed(c echo.Context, incidentID int64, status int, fill func(v *templates.IncidentView)) error {
	inc, err := h.Store.GetIncident(c.Request().Context(), incidentID)
	if err != nil {
		return storeError(err, "incident")
	}
	view, err := h.incidentView(c, inc)
	if err != nil {
		return err
	}
	fill(&view)
	return render(c, status, templates.IncidentPage(view))
}

// childIDs reads the incident id and the nested record's id from the path.
func childIDs(c echo.Context) (incidentID, id int64, err error) {
	if incidentID, err = pathID(c, "id"); err != nil {
		return 0, 0, err
	}
	if id, err = pathID(c, "child"); err != nil {
		return 0, 0, err
	}
	return incidentID, id, nil
}

// childSaved redirects to the record on the incident page, or maps the store's error.
func childSaved(c echo.Context, err error, incidentID int64, anchor, what string) error {
	if err != nil {
		return storeError(err, what)
	}
	return seeOther(c, incidentURL(incidentID)+"#"+anchor)
}

// childDeleted handles the delete of any nested record.
func childDeleted(c echo.Context, del func(incidentID, id int64) error, section, what string) error {
	incidentID, id, err := childIDs(c)
	if err != nil {
		return err
	}
	return childSaved(c, del(incidentID, id), incidentID, section, what)
}

func anchor(prefix string, id int64) string { return prefix + "-" + strconv.FormatInt(id, 10) }

// isConflict tells whether a save lost a race with another edit.
func isConflict(err error) bool { return errors.Is(err, models.ErrConflict) }
