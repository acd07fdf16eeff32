package handlers

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/models"
)

// ReviewApprove records that the signed-in reviewer approves the postmortem, or, with
// approve=false, withdraws the approval. Only an account asked for a review may.
func (h *Handlers) ReviewApprove(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	form, err := formValues(c)
	if err != nil {
		return err
	}
	approve := form.Get("approve") != "false"
	err = h.Store.SetApproval(c.Request().Context(), id, CurrentUser(c).ID, approve)
	switch {
	case err == nil:
		return seeOther(c, incidentURL(id)+"/review")
	case errors.Is(err, models.ErrNotReviewer):
		return echo.NewHTTPError(http.StatusForbidden, "Only a reviewer asked for a review of this postmortem may approve it.")
	}
	return storeError(err, "incident")
}
