package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/models/mdexport"
	"hindsight/templates"
)

// PostmortemPreview shows a postmortem exactly as the status page would show it if it were
// published now, and, when a version was published before, what would change, line by line.
func (h *Handlers) PostmortemPreview(c echo.Context) error {
	inc, err := h.loadIncident(c)
	if err != nil {
		return err
	}
	view, err := h.postmortemPreview(c, inc)
	if err != nil {
		return err
	}
	review, err := h.narrativeReview(c, incidentFormValues(inc))
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.WithLanguageReview(review, templates.PostmortemPreviewPage(view)))
}

func (h *Handlers) postmortemPreview(c echo.Context, inc *models.Incident) (templates.PostmortemPreviewView, error) {
	ctx := c.Request().Context()
	head, err := h.statusHead(c, inc.Title)
	if err != nil {
		return templates.PostmortemPreviewView{}, err
	}
	versions, err := h.Store.PostmortemVersions(ctx, inc.ID)
	if err != nil {
		return templates.PostmortemPreviewView{}, err
	}
	candidate := models.PublicVersionOf(inc)
	view := templates.PostmortemPreviewView{
		Page:     templates.Page{Title: "Public postmortem: " + inc.Title, Section: "incidents"},
		Incident: inc, Versions: versions, StatusURL: "/status/incidents/" + itoa(inc.ID),
		Changed: true,
	}
	pm := &templates.PublishedPostmortem{Markdown: mdexport.Published(candidate, head.Location), Preview: true}
	if len(versions) > 0 {
		latest := &versions[0]
		published, err := latest.Public()
		if err != nil {
			return view, err
		}
		view.Latest = latest
		view.Diff = models.LineDiff(mdexport.PublishedDocument(published, head.Location), mdexport.PublishedDocument(candidate, head.Location))
		view.Changed = models.DiffChanged(view.Diff)
		view.Diff = models.DiffContext(view.Diff, 3)
		if !view.Changed && inc.PostmortemState == models.PostmortemPublished {
			// What the status page shows now, to the byte.
			pm = &templates.PublishedPostmortem{Markdown: mdexport.Published(published, head.Location), Version: latest.Version, PublishedAt: latest.PublishedAt}
		}
	}
	view.Public = statusIncidentView(head, inc, pm)
	review, err := h.Store.ReviewOf(ctx, inc.ID)
	if err != nil {
		return view, err
	}
	view.Reviewers = review.Requests
	view.Findings, err = h.completeness(c, inc)
	return view, err
}

// completeness runs the publish check on an incident: the completeness check, with its template
// and the accounts' names as the internal names to keep out of public text, and whether a
// reviewer approved it. Every path that publishes asks it (see publishCheck).
func (h *Handlers) completeness(c echo.Context, inc *models.Incident) ([]models.Finding, error) {
	ctx := c.Request().Context()
	tpl, err := h.Store.TemplateFor(ctx, inc)
	if err != nil {
		return nil, err
	}
	users, err := h.Store.ListUsers(ctx)
	if err != nil {
		return nil, err
	}
	approvals, err := h.Store.Approvals(ctx, inc.ID)
	if err != nil {
		return nil, err
	}
	return append(models.CheckCompleteness(inc, tpl, models.InternalNamesOf(users, inc)), models.ApprovalFinding(approvals)...), nil
}
