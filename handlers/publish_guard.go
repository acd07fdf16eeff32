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

// guardStoredPublish applies publishGuard to a change of a stored incident's postmortem state, and
// keeps a published postmortem on the status page unless an admin takes the incident off it: a
// published incident made private leaves the status page as surely as an unpublished one.
func (h *Handlers) guardStoredPublish(c echo.Context, id int64, next string, nextPublic bool) error {
	if CurrentUser(c).Can(models.RoleAdmin) {
		return nil
	}
	stored, err := h.Store.PublicationOf(c.Request().Context(), id)
	if err != nil {
		return storeError(err, "incident")
	}
	if stored.State == models.PostmortemPublished && stored.Public && !nextPublic {
		return echo.NewHTTPError(http.StatusForbidden, "Only an admin may take a published postmortem off the status page.")
	}
	return publishGuard(c, stored.State, next)
}

// guardDelete lets only an admin delete an incident whose postmortem is published: deleting it
// takes it off the status page.
func (h *Handlers) guardDelete(c echo.Context, id int64) error {
	if CurrentUser(c).Can(models.RoleAdmin) {
		return nil
	}
	stored, err := h.Store.PublicationOf(c.Request().Context(), id)
	if err != nil {
		return storeError(err, "incident")
	}
	if stored.State == models.PostmortemPublished {
		return echo.NewHTTPError(http.StatusForbidden, "Only an admin may delete an incident whose postmortem is published.")
	}
	return nil
}
