package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// statusHistoryPage is how many incidents a page of the public history lists.
const statusHistoryPage = 100

// StatusHistory serves every public incident by month, a page at a time.
func (h *Handlers) StatusHistory(c echo.Context) error {
	ctx := c.Request().Context()
	page, offset := pageParam(c.QueryParam("page"), statusHistoryPage)
	head, err := h.statusHead(c, "Incident history")
	if err != nil {
		return err
	}
	incidents, total, err := h.Store.PublicIncidentList(ctx, statusHistoryPage, offset)
	if err != nil {
		return err
	}
	view := templates.StatusHistoryView{
		Head: head, Months: statusMonths(incidents, head.Location), Page: page,
		More: int64(page*statusHistoryPage) < total,
	}
	c.Response().Header().Set("Cache-Control", "public, max-age=15")
	return render(c, http.StatusOK, templates.StatusHistoryPage(view))
}
