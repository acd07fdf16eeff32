package handlers

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"time"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// A deleted timeline entry, impact window or follow-up is kept, whole, in the session of whoever
// deleted it, so the Undo on the incident page can put it back as it was: same id, times,
// version, services and factors. Copies live in the session rather than in history because the
// history's before-values leave out the id, the version and the times the record was made.
const (
	undoKey   = "undo"            // JSON list of undoCopy, oldest first
	noticeKey = "incident_notice" // JSON keptNotice, shown once on its incident's page
	undoKept  = 3                 // the last deletes that can still be undone
	undoFor   = time.Hour         // how long after the delete
)

// undoCopy is one deleted record and where it goes back.
type undoCopy struct {
	Token      string
	IncidentID int64
	Section    string                // the incident page section: "timeline", "windows", "follow-ups"
	What       string                // "timeline entry"
	Event      *models.TimelineEvent `json:",omitempty"`
	Window     *models.ImpactWindow  `json:",omitempty"`
	FollowUp   *models.FollowUp      `json:",omitempty"`
	Deleted    time.Time
}

// keptNotice is a message for one incident's page, shown once.
type keptNotice struct {
	IncidentID int64
	Notice     templates.Notice
}

// undoCopies reads the copies that can still be undone; the session carries at most undoKept of
// them, none older than undoFor, so it stays small.
func (h *Handlers) undoCopies(c echo.Context) []undoCopy {
	var copies []undoCopy
	if raw := h.Sessions.GetString(c.Request().Context(), undoKey); raw != "" {
		_ = json.Unmarshal([]byte(raw), &copies) // an unreadable list is an empty one
	}
	fresh := copies[:0]
	for _, kept := range copies {
		if time.Since(kept.Deleted) < undoFor {
			fresh = append(fresh, kept)
		}
	}
	return fresh
}

func (h *Handlers) putUndoCopies(c echo.Context, copies []undoCopy) error {
	raw, err := json.Marshal(copies)
	if err != nil {
		return err
	}
	h.Sessions.Put(c.Request().Context(), undoKey, string(raw))
	return nil
}

// deletedWithUndo keeps the deleted record for an Undo and goes back to the incident page,
// where the notice offers it.
func (h *Handlers) deletedWithUndo(c echo.Context, kept undoCopy, message string) error {
	raw := make([]byte, 18)
	_, _ = rand.Read(raw)
	kept.Token, kept.Deleted = base64.RawURLEncoding.EncodeToString(raw), time.Now()
	copies := append(h.undoCopies(c), kept)
	if len(copies) > undoKept {
		copies = copies[len(copies)-undoKept:]
	}
	if err := h.putUndoCopies(c, copies); err != nil {
		return err
	}
	if err := h.putNotice(c, kept.IncidentID, templates.Notice{Section: kept.Section, Message: message, UndoToken: kept.Token}); err != nil {
		return err
	}
	return seeOther(c, incidentURL(kept.IncidentID)+"#notice")
}

// takeUndo removes and returns the kept copy with this token.
func (h *Handlers) takeUndo(c echo.Context, token string) (undoCopy, bool, error) {
	copies := h.undoCopies(c)
	for n, kept := range copies {
		if token != "" && kept.Token == token {
			err := h.putUndoCopies(c, append(copies[:n:n], copies[n+1:]...))
			return kept, true, err
		}
	}
	return undoCopy{}, false, nil
}

// putNotice leaves a message for the next view of an incident's page.
func (h *Handlers) putNotice(c echo.Context, incidentID int64, n templates.Notice) error {
	raw, err := json.Marshal(keptNotice{IncidentID: incidentID, Notice: n})
	if err != nil {
		return err
	}
	h.Sessions.Put(c.Request().Context(), noticeKey, string(raw))
	return nil
}

// popNotice takes the message left for this incident's page, if there is one; a message for
// another incident waits for that one's page.
func (h *Handlers) popNotice(c echo.Context, incidentID int64) *templates.Notice {
	ctx := c.Request().Context()
	raw := h.Sessions.GetString(ctx, noticeKey)
	if raw == "" {
		return nil
	}
	var kept keptNotice
	if json.Unmarshal([]byte(raw), &kept) != nil {
		h.Sessions.Remove(ctx, noticeKey)
		return nil
	}
	if kept.IncidentID != incidentID {
		return nil
	}
	h.Sessions.Remove(ctx, noticeKey)
	return &kept.Notice
}

// findChild returns the record with this id from an incident's list.
func findChild[T any](list []T, id int64, idOf func(*T) int64) (*T, bool) {
	for n := range list {
		if idOf(&list[n]) == id {
			return &list[n], true
		}
	}
	return nil, false
}
