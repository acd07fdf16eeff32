package handlers

import (
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// MarkdownPreview renders the Markdown of the incident form's sections the way the incident page
// shows it, through the same sanitiser. Asked by htmx (HX-Request), it answers the one section
// named by "preview" as a fragment; asked by a plain form post, the preview button without
// JavaScript, it shows the form again with the user's input and every written section's preview
// beside its editor. Nothing is saved either way.
func (h *Handlers) MarkdownPreview(c echo.Context) error {
	form, err := formValues(c)
	if err != nil {
		return err
	}
	field := form.Get("preview")
	if c.Request().Header.Get("HX-Request") == "true" {
		if !previewable(field, form["sections"]) {
			return echo.NewHTTPError(http.StatusUnprocessableEntity, "Choose a section to preview.")
		}
		return render(c, http.StatusOK, templates.MarkdownPreviewFragment(field, form.Get(field)))
	}
	values, in, _, errs := incidentForm(form)
	var page templates.IncidentForm
	id := c.Param("id")
	if id == "" {
		page, err = h.incidentFormPage(c, "File an incident", "/incidents", "/incidents")
	} else {
		inc, loadErr := h.loadIncident(c)
		if loadErr != nil {
			return loadErr
		}
		url := incidentURL(inc.ID)
		page, err = h.incidentFormPage(c, "Edit: "+inc.Title, url+"/edit", url)
		page.ID, page.Version = inc.ID, formVersion(form)
	}
	if err != nil {
		return err
	}
	page.Values, page.Errors, page.Warnings = values, errs, in.Milestones.OrderWarnings()
	if err := h.applyTemplate(c, &page, &in); err != nil {
		return err
	}
	page.Previews = map[string]string{}
	for _, name := range models.CoreSections {
		if text := form.Get(name); strings.TrimSpace(text) != "" {
			page.Previews[name] = templates.RenderMarkdown(text)
		}
	}
	for _, sec := range page.Values.Sections {
		if strings.TrimSpace(sec.Body) != "" {
			page.Previews["section-"+sec.Slug] = templates.RenderMarkdown(sec.Body)
		}
	}
	status := http.StatusOK
	if len(errs) > 0 {
		status = http.StatusUnprocessableEntity
	}
	return render(c, status, templates.IncidentFormPage(page))
}

// previewable tells whether a form field is a section the preview renders.
func previewable(field string, sections []string) bool {
	if models.IsCoreSection(field) {
		return true
	}
	slug, ok := strings.CutPrefix(field, "section-")
	return ok && slices.Contains(sections, slug)
}
