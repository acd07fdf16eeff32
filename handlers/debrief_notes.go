package handlers

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// DebriefNotes keeps the debrief's notes, or, with the preview button, shows them rendered by
// the same sanitiser as every section, without saving; with htmx the preview alone.
func (h *Handlers) DebriefNotes(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	form, err := formValues(c)
	if err != nil {
		return err
	}
	notes := form.Get("notes")
	if form.Get("preview") != "" {
		if c.Request().Header.Get("HX-Request") == "true" {
			return render(c, http.StatusOK, templates.DebriefNotesPreview(notes))
		}
		view, err := h.debriefPage(c)
		if err != nil {
			return err
		}
		view.Notes, view.NotesPreview = notes, true
		return render(c, http.StatusOK, templates.DebriefPage(view))
	}
	err = h.Store.SaveDebriefNotes(c.Request().Context(), id, notes)
	var fe models.FieldErrors
	switch {
	case err == nil:
		return seeOther(c, incidentURL(id)+"/debrief?done=notes#notes")
	case errors.As(err, &fe):
		view, err := h.debriefPage(c)
		if err != nil {
			return err
		}
		view.Notes, view.NotesError = notes, fe.For("notes")
		return render(c, http.StatusUnprocessableEntity, templates.DebriefPage(view))
	case errors.Is(err, models.ErrNotFound):
		return echo.NewHTTPError(http.StatusConflict, "Schedule the debrief before keeping its notes.")
	}
	return storeError(err, "incident")
}
