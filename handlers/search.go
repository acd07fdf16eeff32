package handlers

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// Search finds words across incidents, timeline entries and follow-ups. Search syntax in the
// query is treated as plain words, so no input can make it fail.
func (h *Handlers) Search(c echo.Context) error {
	q := strings.TrimSpace(c.QueryParam("q"))
	if len(q) > 500 {
		q = q[:500]
	}
	view := templates.SearchView{Page: templates.Page{Title: "Search", Section: "search"}, Query: q}
	if q != "" {
		hits, err := h.Store.Search(c.Request().Context(), q, 30)
		if err != nil {
			return err
		}
		view.Hits = hits
		view.Title = "Search: " + q
	}
	return render(c, http.StatusOK, templates.SearchPage(view))
}
