package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// TemplateList shows the postmortem templates, each severity's default, and the form to add one.
func (h *Handlers) TemplateList(c echo.Context) error {
	view, err := h.templatesView(c)
	if err != nil {
		return err
	}
	switch c.QueryParam("saved") {
	case "template":
		view.Saved = "Template added."
	case "defaults":
		view.Saved = "Default templates saved."
	}
	return render(c, http.StatusOK, templates.TemplatesPage(view))
}

func (h *Handlers) templatesView(c echo.Context) (templates.TemplatesView, error) {
	ctx := c.Request().Context()
	all, err := h.Store.Templates(ctx)
	if err != nil {
		return templates.TemplatesView{}, err
	}
	defaults, err := h.Store.DefaultTemplates(ctx)
	if err != nil {
		return templates.TemplatesView{}, err
	}
	return templates.TemplatesView{
		Page:      templates.Page{Title: "Postmortem templates", Section: "admin"},
		Templates: all, Defaults: defaults,
	}, nil
}
