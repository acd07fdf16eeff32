package handlers

import (
	"context"
	"errors"
	"net/http"
	"net/url"
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
	if isHTMX(c) && view.Open != "" {
		return render(c, status, templates.IncidentSection(view, sectionOf(view.Open)))
	}
	return render(c, status, templates.IncidentPage(view))
}

// isHTMX tells whether an add form on the incident page posted through htmx, which swaps the
// section it answers in place instead of loading the page.
func isHTMX(c echo.Context) bool { return c.Request().Header.Get("HX-Request") == "true" }

// sectionOf is the incident page section an open form belongs to.
func sectionOf(open string) string {
	if open == "follow-ups-bulk" {
		return "follow-ups"
	}
	return open
}

// sectionSaved answers an add form's htmx request: the section again, with the new record in its
// list and the add form open, empty and focused, so the next one can be typed at once.
func (h *Handlers) sectionSaved(c echo.Context, incidentID int64, section string) error {
	inc, err := h.Store.GetIncident(c.Request().Context(), incidentID)
	if err != nil {
		return storeError(err, "incident")
	}
	view, err := h.incidentView(c, inc)
	if err != nil {
		return err
	}
	view.Open, view.Focus = section, section
	return render(c, http.StatusOK, templates.IncidentSection(view, section))
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

// childForm describes one kind of nested record's add or edit form for childSave.
type childForm[V, I any] struct {
	parse func(url.Values) (V, I, models.FieldErrors)
	// save writes the record (id 0: a new one) and returns its id.
	save func(ctx context.Context, incidentID, id int64, in I) (int64, error)
	// place puts the failed form back on the page: the add form, or the edit form in place.
	place   func(v *templates.IncidentView, f templates.ChildForm[V])
	anchor  string // the record's element id prefix, e.g. "event"
	section string // the incident page section its list is in, e.g. "timeline"
	what    string // the record in words, for errors
}

// childSave handles the add and edit forms of timeline entries and impact windows: read,
// validate, save and go back to the record; or show the page again with the input kept and the
// reason beside each field.
func childSave[V, I any](h *Handlers, c echo.Context, edit bool, f childForm[V, I]) error {
	incidentID, err := pathID(c, "id")
	if err != nil {
		return err
	}
	var id int64
	if edit {
		if id, err = pathID(c, "child"); err != nil {
			return err
		}
	}
	form, err := formValues(c)
	if err != nil {
		return err
	}
	values, in, errs := f.parse(form)
	if len(errs) > 0 {
		return h.childFormFailed(c, incidentID, http.StatusUnprocessableEntity, func(v *templates.IncidentView) {
			f.place(v, templates.ChildForm[V]{ID: id, Values: values, Errors: errs})
		})
	}
	saved, err := f.save(c.Request().Context(), incidentID, id, in)
	var refused models.FieldErrors
	if errors.As(err, &refused) {
		// The store's own rules (a full timeline, an unknown factor): the form again, as typed.
		return h.childFormFailed(c, incidentID, http.StatusUnprocessableEntity, func(v *templates.IncidentView) {
			f.place(v, templates.ChildForm[V]{ID: id, Values: values, Errors: refused})
		})
	}
	if err != nil {
		what := f.what
		if !edit {
			what = "incident"
		}
		return storeError(err, what)
	}
	if isHTMX(c) && !edit {
		return h.sectionSaved(c, incidentID, f.section)
	}
	return seeOther(c, incidentURL(incidentID)+"#"+anchor(f.anchor, saved))
}
