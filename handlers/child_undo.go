package handlers

import (
	"errors"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// ChildUndo puts back the timeline entry, impact window or follow-up this session just deleted,
// as it was, from the copy the delete kept (see undo.go).
func (h *Handlers) ChildUndo(c echo.Context) error {
	incidentID, err := pathID(c, "id")
	if err != nil {
		return err
	}
	form, err := formValues(c)
	if err != nil {
		return err
	}
	kept, ok, err := h.takeUndo(c, form.Get("token"))
	if err != nil {
		return err
	}
	if !ok || kept.IncidentID != incidentID {
		return h.noticeAndBack(c, incidentID, "", "There is nothing to undo here: an Undo works once, within an hour, in the browser that deleted the record. The History page lists what was deleted and when.", "notice")
	}
	ctx := c.Request().Context()
	var anchorID string
	switch {
	case kept.Event != nil:
		kept.Event.IncidentID, anchorID = incidentID, anchor("event", kept.Event.ID)
		err = h.Store.RestoreEvent(ctx, *kept.Event)
	case kept.Window != nil:
		kept.Window.IncidentID, anchorID = incidentID, anchor("window", kept.Window.ID)
		err = h.Store.RestoreWindow(ctx, *kept.Window)
	case kept.FollowUp != nil:
		kept.FollowUp.IncidentID, anchorID = incidentID, anchor("follow-up", kept.FollowUp.ID)
		err = h.Store.RestoreFollowUp(ctx, *kept.FollowUp)
	}
	if errors.Is(err, models.ErrConflict) {
		return h.noticeAndBack(c, incidentID, kept.Section, "The "+kept.What+" is back already.", anchorID)
	}
	if err != nil {
		return storeError(err, "incident")
	}
	return h.noticeAndBack(c, incidentID, kept.Section, "Restored the "+kept.What+".", anchorID)
}

func (h *Handlers) noticeAndBack(c echo.Context, incidentID int64, section, message, fragment string) error {
	if err := h.putNotice(c, incidentID, templates.Notice{Section: section, Message: message}); err != nil {
		return err
	}
	return seeOther(c, incidentURL(incidentID)+"#"+fragment)
}
