package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/feeds"
	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// feedByToken opens the owner feed a secret link names; an unknown or revoked secret is a 404.
func (h *Handlers) feedByToken(c echo.Context) (*models.CalendarFeed, error) {
	feed, err := h.Store.CalendarFeedByToken(c.Request().Context(), c.Param("token"))
	if errors.Is(err, models.ErrNotFound) {
		return nil, echo.NewHTTPError(http.StatusNotFound, "This feed link is unknown or was revoked.")
	}
	return feed, err
}

// FeedCalendar serves an owner's open follow-ups as iCalendar all-day events on their due dates.
func (h *Handlers) FeedCalendar(c echo.Context) error {
	feed, err := h.feedByToken(c)
	if err != nil {
		return err
	}
	items, _, err := h.Store.ListFollowUps(c.Request().Context(), models.FollowUpFilter{Owner: feed.Owner, Status: "active", Limit: 5000, Now: time.Now()})
	if err != nil {
		return err
	}
	base := siteBase(c)
	var b strings.Builder
	line := func(s string) { b.WriteString(foldICS(s)) }
	line("BEGIN:VCALENDAR")
	line("VERSION:2.0")
	line("PRODID:-//Hindsight//Follow-ups//EN")
	line("CALSCALE:GREGORIAN")
	line("X-WR-CALNAME:" + escapeICS("Follow-ups of "+feed.Owner))
	stamp := time.Now().UTC().Format("20060102T150405Z")
	for _, f := range items {
		if f.DueOn == nil {
			continue
		}
		due := f.DueOn.UTC()
		line("BEGIN:VEVENT")
		line(fmt.Sprintf("UID:follow-up-%d@hindsight", f.ID))
		line("DTSTAMP:" + stamp)
		line("DTSTART;VALUE=DATE:" + due.Format("20060102"))
		line("DTEND;VALUE=DATE:" + due.AddDate(0, 0, 1).Format("20060102"))
		summary := f.Title
		if f.Incident != nil {
			summary += " (" + f.Incident.Title + ")"
		}
		line("SUMMARY:" + escapeICS(summary))
		line("DESCRIPTION:" + escapeICS(fmt.Sprintf("%s priority, %s. %s", strings.ToUpper(f.Priority), models.FollowUpStatusLabel(f.Status), f.Verification)))
		line(fmt.Sprintf("URL:%s/follow-ups/%d", base, f.ID))
		line("END:VEVENT")
	}
	line("END:VCALENDAR")
	c.Response().Header().Set("Cache-Control", "private, max-age=300")
	return c.Blob(http.StatusOK, "text/calendar; charset=utf-8", []byte(b.String()))
}

// escapeICS escapes text values as RFC 5545 asks.
func escapeICS(s string) string {
	return strings.NewReplacer(`\`, `\\`, ";", `\;`, ",", `\,`, "\r\n", `\n`, "\n", `\n`, "\r", `\n`).Replace(s)
}

// foldICS ends a content line with CRLF, folding it at 75 octets without splitting a character.
func foldICS(s string) string {
	var b strings.Builder
	width := 0
	for _, r := range s {
		size := len(string(r))
		if width+size > 75 {
			b.WriteString("\r\n ")
			width = 1
		}
		b.WriteRune(r)
		width += size
	}
	b.WriteString("\r\n")
	return b.String()
}

// FeedAtom serves the latest changes to one owner's follow-ups as Atom, for a feed reader.
func (h *Handlers) FeedAtom(c echo.Context) error {
	feed, err := h.feedByToken(c)
	if err != nil {
		return err
	}
	return h.atom(c, feed.Owner, "Follow-up changes for "+feed.Owner)
}

// FollowUpAtom serves the latest changes to every follow-up as Atom, for signed-in readers.
func (h *Handlers) FollowUpAtom(c echo.Context) error {
	return h.atom(c, "", "Follow-up changes")
}

func (h *Handlers) atom(c echo.Context, owner, title string) error {
	entries, err := h.Store.FollowUpChanges(c.Request().Context(), owner, 50)
	if err != nil {
		return err
	}
	base := siteBase(c)
	f := &feeds.Feed{Title: title, Link: &feeds.Link{Href: base + "/follow-ups"}, Id: base + "/follow-ups", Updated: time.Now().UTC()}
	if len(entries) > 0 {
		f.Updated = entries[0].At
	}
	for _, e := range entries {
		var parts []string
		for _, ch := range e.ChangeList() {
			parts = append(parts, fmt.Sprintf("%s: %v → %v", ch.Field, changeText(ch.Before), changeText(ch.After)))
		}
		f.Items = append(f.Items, &feeds.Item{
			Title:       fmt.Sprintf("%s %s", e.Actor, templates.HistoryAction(e)),
			Link:        &feeds.Link{Href: fmt.Sprintf("%s/follow-ups/%d", base, e.EntityID)},
			Id:          fmt.Sprintf("%s/follow-ups/%d#change-%d", base, e.EntityID, e.ID),
			Author:      &feeds.Author{Name: e.Actor},
			Updated:     e.At,
			Created:     e.At,
			Description: strings.Join(parts, "\n"),
		})
	}
	atom, err := f.ToAtom()
	if err != nil {
		return err
	}
	return c.Blob(http.StatusOK, "application/atom+xml; charset=utf-8", []byte(atom))
}

func changeText(v any) string {
	if v == nil {
		return "—"
	}
	s := fmt.Sprint(v)
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

// siteBase is the scheme and host the request came to, for absolute links in feeds.
func siteBase(c echo.Context) string {
	return c.Scheme() + "://" + c.Request().Host
}
