package handlers

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// LinkDeleteConfirm asks before a link between two incidents is deleted.
func (h *Handlers) LinkDeleteConfirm(c echo.Context) error {
	inc, id, err := h.childOf(c)
	if err != nil {
		return err
	}
	l, ok := findChild(inc.Links, id, func(l *models.LinkedIncident) int64 { return l.LinkID })
	if !ok {
		return storeError(models.ErrNotFound, "link")
	}
	return render(c, http.StatusOK, templates.ConfirmPage(templates.ConfirmView{
		Page:        templates.Page{Title: "Delete link? · " + inc.Title, Section: "incidents"},
		Question:    "Delete the link between #" + itoa(inc.ID) + " and #" + itoa(l.OtherID) + "?",
		Details:     []string{"“" + inc.Title + "” " + strings.ToLower(templates.LinkLabel(*l)) + " #" + itoa(l.OtherID) + " “" + l.Title + "”"},
		Consequence: templates.ChildDeleteConsequence("link"), Action: c.Request().URL.Path,
		Button: "Delete link", Cancel: incidentURL(inc.ID) + "#links",
	}))
}
