package handlers

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// ReviewsMine lists what the signed-in person has to review or attend: reviews asked of them
// and not approved, unresolved threads they started or on postmortems they review, and the
// debriefs they facilitate, take notes at or attend that are still to come.
func (h *Handlers) ReviewsMine(c echo.Context) error {
	work, err := h.Store.ReviewWorkOf(c.Request().Context(), CurrentUser(c).ID, time.Now())
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.ReviewsPage(templates.ReviewsPageView{
		Page: templates.Page{Title: "Reviews and debriefs", Section: "reviews"}, Work: work,
	}))
}
