package handlers

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// IncidentDeleteConfirm asks before an incident goes to the Trash. Whoever may not delete it (a
// responder, when its postmortem is published) is told so here rather than after.
func (h *Handlers) IncidentDeleteConfirm(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if err := h.guardDelete(c, id); err != nil {
		return err
	}
	inc, err := h.loadIncident(c)
	if err != nil {
		return err
	}
	details := []string{
		templates.Label(inc.Severity) + " · " + templates.Label(inc.Status) + " · postmortem " + templates.Label(inc.PostmortemState),
		fmt.Sprintf("%d timeline %s, %d impact %s, %d %s", len(inc.Timeline), plural(len(inc.Timeline), "entry", "entries"),
			len(inc.ImpactWindows), plural(len(inc.ImpactWindows), "window", "windows"), len(inc.FollowUps), plural(len(inc.FollowUps), "follow-up", "follow-ups")),
	}
	if inc.Public {
		details = append(details, "It is on the public status page now, and leaves it.")
	}
	return render(c, http.StatusOK, templates.ConfirmPage(templates.ConfirmView{
		Page:     templates.Page{Title: "Delete incident? · " + inc.Title, Section: "incidents"},
		Question: fmt.Sprintf("Delete incident #%d “%s”?", inc.ID, inc.Title), Details: details,
		Consequence: templates.IncidentDeleteConsequence, Action: c.Request().URL.Path,
		Button: "Delete incident", Cancel: incidentURL(inc.ID),
	}))
}

// plural picks the word for a count.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
