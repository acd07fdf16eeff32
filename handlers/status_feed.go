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
// incident's public updates, and says when its postmortem was published. The feed's id is the
// status page's address and each entry's the incident's public page, both on the configured
// base URL, so they stay the same whatever host a reader asked.
func (h *Handlers) StatusFeed(c echo.Context) error {
	return h.serveStatus(c, "application/atom+xml; charset=utf-8", func(ctx context.Context) ([]byte, error) {
		settings, err := h.Store.StatusSettings(ctx)
		if err != nil {
			return nil, err
		}
		loc := settings.Location()
		incidents, _, err := h.Store.PublicIncidents(ctx, models.PublicFilter{Limit: statusFeedEntries})
		if err != nil {
			return nil, err
		}
		versions, err := h.latestPostmortems(ctx, incidents)
		if err != nil {
			return nil, err
		}
		page := h.statusURL(settings)
		feed := newAtomFeed(settings.Name, page, page, page+"/feed.atom", &feeds.AtomAuthor{AtomPerson: feeds.AtomPerson{Name: settings.Name, Uri: page}})
		feed.Subtitle = "Incidents on " + settings.Name
		latest := time.Unix(0, 0).UTC()
		for n := range incidents {
			inc := &incidents[n]
			link := fmt.Sprintf("%s/incidents/%d", page, inc.ID)
			updated := publicStart(inc)
			var content strings.Builder
			for _, ev := range models.PublicEvents(inc) {
				if ev.At.After(updated) {
					updated = ev.At
				}
				fmt.Fprintf(&content, "<p><strong>%s</strong> · %s</p>\n", html.EscapeString(templates.UpdateLabel(ev)), html.EscapeString(templates.StatusWhen(ev.At, loc)))
				// A feed reader resolves no relative link: the images at the status page's address.
				content.WriteString(templates.RenderMarkdown(models.ImageLinks(ev.Body, page)))
			}
			pm, err := publishedPostmortem(inc, versions, loc)
			if err != nil {
				return nil, err
			}
			if pm != nil {
				if pm.PublishedAt.After(updated) {
					updated = pm.PublishedAt
				}
				fmt.Fprintf(&content, "<p><a href=\"%s#postmortem\">Postmortem</a> published %s.</p>\n", html.EscapeString(link), html.EscapeString(templates.StatusWhen(pm.PublishedAt, loc)))
			}
			if updated.After(latest) {
				latest = updated
			}
			title := fmt.Sprintf("%s (%s)", inc.Title, templates.Label(inc.Status))
			if impact := statuspage.Impact(inc); impact != "none" {
				title = fmt.Sprintf("%s (%s, %s impact)", inc.Title, templates.Label(inc.Status), impact)
			}
			feed.Entries = append(feed.Entries, &feeds.AtomEntry{
				Title:     title,
				Id:        link,
				Links:     []feeds.AtomLink{{Href: link, Rel: "alternate", Type: "text/html"}},
				Published: atomTime(publicStart(inc)),
				Updated:   atomTime(updated),
				Content:   &feeds.AtomContent{Content: content.String(), Type: "html"},
			})
		}
		if len(feed.Entries) == 0 {
			latest = time.Now()
		}
		feed.Updated = atomTime(latest)
		return feed.marshal()
	})
}
