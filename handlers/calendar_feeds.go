package handlers

import (
	"strings"

	"github.com/labstack/echo/v4"
)

// CalendarFeedCreate makes a secret feed link for the follow-ups of an owner (by default the
// user themself) and shows it once on the account page.
func (h *Handlers) CalendarFeedCreate(c echo.Context) error {
	user := CurrentUser(c)
	owner := strings.TrimSpace(c.FormValue("owner"))
	if owner == "" {
		owner = user.Email
	}
	secret, err := h.Store.CreateCalendarFeed(c.Request().Context(), user.ID, owner)
	if err != nil {
		return err
	}
	base, err := h.siteBase(c.Request().Context())
	if err != nil {
		return err
	}
	h.Sessions.Put(c.Request().Context(), "flash", "Feed links for "+owner+" (shown only now): calendar "+base+"/feeds/"+secret+"/calendar.ics · changes "+base+"/feeds/"+secret+"/follow-ups.atom")
	return seeOther(c, "/account#feeds")
}

// CalendarFeedRevoke ends a feed link for good.
func (h *Handlers) CalendarFeedRevoke(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if err := h.Store.RevokeCalendarFeed(c.Request().Context(), CurrentUser(c).ID, id); err != nil {
		return storeError(err, "feed")
	}
	h.Sessions.Put(c.Request().Context(), "flash", "Feed link revoked.")
	return seeOther(c, "/account#feeds")
}
