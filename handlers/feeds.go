package handlers

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gorilla/feeds"
	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/models/ical"
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
	// The owner's account, by id, when the feed's owner names one: the calendar follows the
	// person, whatever their follow-ups' owner text says.
	filter, err := h.Store.OwnerFilter(c.Request().Context(), feed.Owner)
	if err != nil {
		return err
	}
	filter.Status, filter.Limit, filter.Now = "active", 5000, time.Now()
	items, _, err := h.Store.ListFollowUps(c.Request().Context(), filter)
	if err != nil {
		return err
	}
	base, err := h.siteBase(c.Request().Context())
	if err != nil {
		return err
	}
	var b strings.Builder
	line := func(s string) { b.WriteString(ical.Line(s)) }
	line("BEGIN:VCALENDAR")
	line("VERSION:2.0")
	line("PRODID:-//Hindsight//Follow-ups//EN")
	line("CALSCALE:GREGORIAN")
	line("X-WR-CALNAME:" + ical.Text("Follow-ups of "+feed.Owner))
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
		line("SUMMARY:" + ical.Text(summary))
		line("DESCRIPTION:" + ical.Text(fmt.Sprintf("%s priority, %s. %s", strings.ToUpper(f.Priority), models.FollowUpStatusLabel(f.Status), f.Verification)))
		line(fmt.Sprintf("URL:%s/follow-ups/%d", base, f.ID))
		line("END:VEVENT")
	}
	line("END:VCALENDAR")
	c.Response().Header().Set("Cache-Control", "private, max-age=300")
	return c.Blob(http.StatusOK, "text/calendar; charset=utf-8", []byte(b.String()))
}

// FeedAtom serves the latest changes to one owner's follow-ups as Atom, for a feed reader.
func (h *Handlers) FeedAtom(c echo.Context) error {
	feed, err := h.feedByToken(c)
	if err != nil {
		return err
	}
	return h.followUpAtom(c, feed.Owner, "/feeds/"+url.PathEscape(c.Param("token"))+"/follow-ups.atom")
}

// FollowUpAtom serves the latest changes to every follow-up as Atom, for signed-in readers.
func (h *Handlers) FollowUpAtom(c echo.Context) error {
	return h.followUpAtom(c, "", "/follow-ups/feed.atom")
}

// followUpAtom writes the follow-up changes of one owner, or of everyone, as Atom. Each owner's
// feed has its own id, the address of the list it follows; each change is an entry whose id is
// the follow-up's address and the change's number, the same in every feed that carries it.
func (h *Handlers) followUpAtom(c echo.Context, owner, selfPath string) error {
	ctx := c.Request().Context()
	entries, err := h.Store.FollowUpChanges(ctx, owner, 50)
	if err != nil {
		return err
	}
	base, err := h.siteBase(ctx)
	if err != nil {
		return err
	}
	list, title := base+"/follow-ups", "Follow-up changes"
	if owner != "" {
		list, title = base+"/follow-ups?"+url.Values{"owner": {owner}}.Encode(), "Follow-up changes for "+owner
	}
	feed := newAtomFeed(title, list, list, base+selfPath, &feeds.AtomAuthor{AtomPerson: feeds.AtomPerson{Name: "Hindsight", Uri: base + "/"}})
	feed.Updated = atomTime(time.Now())
	if len(entries) > 0 {
		feed.Updated = atomTime(entries[0].At)
	}
	for _, e := range entries {
		var summary strings.Builder
		summary.WriteString("<ul>")
		for _, ch := range e.ChangeList() {
			// The values are the user's text, shown as text: a reader renders type="html".
			fmt.Fprintf(&summary, "<li>%s: %s → %s</li>", html.EscapeString(ch.Field), html.EscapeString(changeText(ch.Before)), html.EscapeString(changeText(ch.After)))
		}
		summary.WriteString("</ul>")
		at := atomTime(e.At)
		page := fmt.Sprintf("%s/follow-ups/%d", base, e.EntityID)
		feed.Entries = append(feed.Entries, &feeds.AtomEntry{
			Title:     fmt.Sprintf("%s %s", e.Actor, templates.HistoryAction(e)),
			Id:        fmt.Sprintf("%s#change-%d", page, e.ID),
			Links:     []feeds.AtomLink{{Href: page, Rel: "alternate", Type: "text/html"}},
			Updated:   at,
			Published: at,
			Author:    &feeds.AtomAuthor{AtomPerson: feeds.AtomPerson{Name: e.Actor}},
			Summary:   &feeds.AtomSummary{Content: summary.String(), Type: "html"},
		})
	}
	body, err := feed.marshal()
	if err != nil {
		return err
	}
	return c.Blob(http.StatusOK, "application/atom+xml; charset=utf-8", body)
}

func changeText(v any) string {
	if v == nil {
		return "—"
	}
	s := fmt.Sprint(v)
	if len(s) > 120 {
		s = strings.ToValidUTF8(s[:120], "") + "…"
	}
	return s
}

// atomFeed is an Atom feed document (RFC 4287). gorilla/feeds' own feed type writes a single
// link and takes the feed's id from it, so a feed could carry neither its rel="self" link nor
// an id of its own; its entry, link and person types are used as they are.
type atomFeed struct {
	XMLName  xml.Name `xml:"http://www.w3.org/2005/Atom feed"`
	Title    string   `xml:"title"`
	Subtitle string   `xml:"subtitle,omitempty"`
	ID       string   `xml:"id"`
	Updated  string   `xml:"updated"`
	Links    []feeds.AtomLink
	Author   *feeds.AtomAuthor
	Entries  []*feeds.AtomEntry
}

// newAtomFeed starts a feed with its id, the page it stands for and its own address.
func newAtomFeed(title, id, alternate, self string, author *feeds.AtomAuthor) *atomFeed {
	return &atomFeed{Title: title, ID: id, Author: author, Links: []feeds.AtomLink{
		{Href: alternate, Rel: "alternate", Type: "text/html"},
		{Href: self, Rel: "self", Type: "application/atom+xml"},
	}}
}

func (f *atomFeed) marshal() ([]byte, error) {
	body, err := xml.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), body...), nil
}

func atomTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// defaultBaseURL is the base URL when neither the settings page nor the server names one: what
// a server started on the default address announces.
const defaultBaseURL = "http://localhost:8080"

// baseURL is where people reach Hindsight, for every absolute link, feed id and entry id: the
// settings page's base URL when an admin saved one, else the server's --base-url
// (HINDSIGHT_BASE_URL), else defaultBaseURL. Never the request's Host or X-Forwarded-* headers,
// which the client chooses.
func (h *Handlers) baseURL(settings models.StatusSettings) string {
	for _, base := range []string{settings.BaseURL, h.BaseURL} {
		if base = models.NormalBaseURL(base); base != "" {
			return base
		}
	}
	return defaultBaseURL
}

// siteBase reads the settings for baseURL.
func (h *Handlers) siteBase(ctx context.Context) (string, error) {
	settings, err := h.Store.StatusSettings(ctx)
	if err != nil {
		return "", err
	}
	return h.baseURL(settings), nil
}
