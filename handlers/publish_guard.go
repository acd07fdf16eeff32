package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/models"
)

// publishGuard lets only an admin change what the public sees of a postmortem: publish it, or
// take a published one back. It applies wherever the state can change: the postmortem page, the
// incident form and the API.
func publishGuard(c echo.Context, stored, next string) error {
	if stored == next || CurrentUser(c).Can(models.RoleAdmin) {
		return nil
	}
	switch models.PostmortemPublished {
	case next:
		return echo.NewHTTPError(http.StatusForbidden, "Only an admin may publish a postmortem; set it to in review and ask one to publish it from the postmortem page.")
	case stored:
		return echo.NewHTTPError(http.StatusForbidden, "Only an admin may take a published postmortem back from the status page.")
	}
	return nil
}

// guardStoredPublish applies publishGuard to a change of a stored incident's postmortem state.
func (h *Handlers) guardStoredPublish(c echo.Context, id int64, next string) error {
	if CurrentUser(c).Can(models.RoleAdmin) {
		return nil
	}
	stored, err := h.Store.PostmortemStateOf(c.Request().Context(), id)
	if err != nil {
		return storeError(err, "incident")
	}
	return publishGuard(c, stored, next)
}
