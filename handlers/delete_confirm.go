package handlers

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// The confirmation pages: GET on a delete address asks, POST on it deletes. The incident page's
// Delete links lead here; with JavaScript, static/forms.js asks in a dialog and posts itself.

// childOf loads the incident of a nested record's address and the record's id.
func (h *Handlers) childOf(c echo.Context) (*models.Incident, int64, error) {
	incidentID, id, err := childIDs(c)
	if err != nil {
		return nil, 0, err
	}
	inc, err := h.Store.GetIncident(c.Request().Context(), incidentID)
	if err != nil {
		return nil, 0, storeError(err, "incident")
	}
	return inc, id, nil
}

// confirmChild asks before deleting one of an incident's records: describe returns the page, or
// false when the incident has no such record.
func (h *Handlers) confirmChild(c echo.Context, what string, describe func(inc *models.Incident, id int64) (templates.ConfirmView, bool)) error {
	inc, id, err := h.childOf(c)
	if err != nil {
		return err
	}
	v, ok := describe(inc, id)
	if !ok {
		return storeError(models.ErrNotFound, what)
	}
	v.Page = templates.Page{Title: "Delete " + what + "? · " + inc.Title, Section: "incidents"}
	v.Action = c.Request().URL.Path
	v.Consequence = templates.ChildDeleteConsequence(what)
	v.Button = "Delete " + what
	return render(c, http.StatusOK, templates.ConfirmPage(v))
}

// excerpt shortens a text to its first line of at most n characters.
func excerpt(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > n {
		return strings.TrimSpace(string(r[:n])) + "…"
	}
	return s
}
