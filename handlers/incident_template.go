package handlers

import (
	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// applyTemplate finds the template a form follows (its own, or its severity's default), lays
// the extra sections out under it, and offers the templates to choose from. in, when not nil,
// gets the same sections, so what is saved is what the form shows.
func (h *Handlers) applyTemplate(c echo.Context, page *templates.IncidentForm, in *models.IncidentInput) error {
	ctx := c.Request().Context()
	all, err := h.Store.Templates(ctx)
	if err != nil {
		return err
	}
	page.Templates = all
	probe := &models.Incident{TemplateSlug: page.Values.Template, Severity: page.Values.Severity}
	tpl, err := h.Store.TemplateFor(ctx, probe)
	if err != nil {
		return err
	}
	page.UsedTemplate = tpl
	page.Values.Sections = models.MergeSections(tpl, page.Values.Sections)
	if in != nil {
		sections := page.Values.Sections
		in.Sections = &sections
	}
	return nil
}
