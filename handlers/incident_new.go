package handlers

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// IncidentNew shows an empty incident form.
func (h *Handlers) IncidentNew(c echo.Context) error {
	form, err := h.incidentFormPage(c, "File an incident", "/incidents", "/incidents")
	if err != nil {
		return err
	}
	form.Values = templates.IncidentFormValues{
		Severity: "sev2", Status: "investigating", TimeZone: "UTC", PostmortemState: "none",
		Milestones: map[string]string{},
	}
	if err := h.applyTemplate(c, &form, nil); err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.IncidentFormPage(form))
}

// incidentFormPage prepares the parts of the incident form that do not depend on its values.
func (h *Handlers) incidentFormPage(c echo.Context, title, action, cancel string) (templates.IncidentForm, error) {
	ctx := c.Request().Context()
	services, err := h.Store.ServiceNames(ctx)
	if err != nil {
		return templates.IncidentForm{}, err
	}
	regions, err := h.Store.RegionNames(ctx)
	if err != nil {
		return templates.IncidentForm{}, err
	}
	factors, err := h.Store.ListFactors(ctx)
	if err != nil {
		return templates.IncidentForm{}, err
	}
	return templates.IncidentForm{
		Page: templates.Page{Title: title, Section: "incidents"}, Action: action, Cancel: cancel,
		Services: services, Regions: regions, AllFactors: factors,
		PreviewAction: previewAction(action),
	}, nil
}

// previewAction is where the form's preview buttons post: beside the new form, or the edit form.
func previewAction(action string) string {
	if action == "/incidents" {
		return "/incidents/new/preview"
	}
	return strings.TrimSuffix(action, "/edit") + "/preview"
}
