package handlers

import (
	"context"
	"fmt"
	"html"
	"strings"
	"time"

	"github.com/gorilla/feeds"
	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/models/statuspage"
	"hindsight/templates"
)

// statusFeedEntries is how many incidents the status page's feed carries.
const statusFeedEntries = 50

// StatusFeed serves the public incidents as Atom, newest first: each entry carries the
// incident's public updates, and says when its postmortem was published.
func (h *Handlers) StatusFeed(c echo.Context) error {
	base := siteBase(c)
	return h.serveStatus(c, "application/atom+xml; charset=utf-8", func(ctx context.Context) ([]byte, error) {
		head, err := h.statusHead(ctx, "")
		if err != nil {
			return nil, err
		}
		incidents, _, err := h.Store.PublicIncidents(ctx, models.PublicFilter{Limit: statusFeedEntries})
		if err != nil {
			return nil, err
		}
		versions, err := h.latestPostmortems(ctx, incidents)
		if err != nil {
			return nil, err
		}
		feed := &feeds.Feed{
			Title: head.Name, Link: &feeds.Link{Href: base + "/status"}, Id: base + "/status",
			Description: "Incidents on " + head.Name, Updated: time.Unix(0, 0).UTC(),
		}
		for n := range incidents {
			inc := &incidents[n]
			link := fmt.Sprintf("%s/status/incidents/%d", base, inc.ID)
			updated := publicStart(inc)
			var content strings.Builder
			for _, ev := range models.PublicEvents(inc) {
				if ev.At.After(updated) {
					updated = ev.At
				}
				fmt.Fprintf(&content, "<p><strong>%s</strong> · %s</p>\n", html.EscapeString(templates.UpdateLabel(ev)), html.EscapeString(templates.StatusWhen(ev.At, head.Location)))
				content.WriteString(templates.RenderMarkdown(ev.Body))
			}
			pm, err := publishedPostmortem(inc, versions, head.Location)
			if err != nil {
				return nil, err
			}
			if pm != nil {
				if pm.PublishedAt.After(updated) {
					updated = pm.PublishedAt
				}
				fmt.Fprintf(&content, "<p><a href=\"%s#postmortem\">Postmortem</a> published %s.</p>\n", html.EscapeString(link), html.EscapeString(templates.StatusWhen(pm.PublishedAt, head.Location)))
			}
			if updated.After(feed.Updated) {
				feed.Updated = updated
			}
			feed.Items = append(feed.Items, &feeds.Item{
				Title:   fmt.Sprintf("%s (%s, %s impact)", inc.Title, templates.Label(inc.Status), statuspage.Impact(inc.Severity)),
				Link:    &feeds.Link{Href: link},
				Id:      link,
				Created: publicStart(inc),
				Updated: updated,
				Content: content.String(),
			})
		}
		if len(feed.Items) == 0 {
			feed.Updated = time.Now().UTC()
		}
		atom, err := feed.ToAtom()
		return []byte(atom), err
	})
}
