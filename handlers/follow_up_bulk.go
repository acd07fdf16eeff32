package handlers

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"hindsight/models"
)

// FollowUpBulk moves the selected follow-ups to one status.
func (h *Handlers) FollowUpBulk(c echo.Context) error {
	form, err := formValues(c)
	if err != nil {
		return err
	}
	var ids []int64
	for _, v := range form["id"] {
		if id, err := strconv.ParseInt(v, 10, 64); err == nil {
			ids = append(ids, id)
		}
	}
	back := localPath(form.Get("return"), "/follow-ups")
	if !strings.HasPrefix(back, "/follow-ups") {
		back = "/follow-ups"
	}
	if len(ids) == 0 {
		h.Sessions.Put(c.Request().Context(), "flash", "Select at least one follow-up first.")
		return seeOther(c, back)
	}
	changed, err := h.Store.SetFollowUpStatus(c.Request().Context(), ids, form.Get("status"))
	if fe, ok := asFieldErrors(err); ok {
		return echo.NewHTTPError(http.StatusUnprocessableEntity, fe.For("status"))
	}
	if err != nil {
		return err
	}
	h.Sessions.Put(c.Request().Context(), "flash", strconv.Itoa(changed)+" follow-up(s) set to "+models.FollowUpStatusLabel(form.Get("status"))+".")
	return seeOther(c, back)
}
