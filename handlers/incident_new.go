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
	form.Values = h.newIncidentValues(c)
	if err := h.applyTemplate(c, &form, nil); err != nil {
		return err
	}
	ctx := templates.WithPaste(c.Request().Context(), templates.PasteView{TimeZone: form.Values.TimeZone})
	c.SetRequest(c.Request().WithContext(ctx))
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
	owners, err := h.ownerOptions(c)
	if err != nil {
		return templates.IncidentForm{}, err
	}
	return templates.IncidentForm{
		Page: templates.Page{Title: title, Section: "incidents"}, Action: action, Cancel: cancel,
		Services: services, Regions: regions, AllFactors: factors, Owners: owners,
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

// newIncidentValues are an empty incident form's defaults, its time zone the user's own.
func (h *Handlers) newIncidentValues(c echo.Context) templates.IncidentFormValues {
	return templates.IncidentFormValues{
		Severity: "sev2", Status: "investigating", TimeZone: userZone(c), PostmortemState: "none",
		Milestones: map[string]string{},
	}
}

// userZone is the signed-in user's own time zone, UTC until the browser has told it.
func userZone(c echo.Context) string {
	if u := CurrentUser(c); u != nil && u.TimeZone != "" {
		return u.TimeZone
	}
	return "UTC"
}

// ownerOptions lists the enabled accounts as follow-up owners: the email is stored, the name
// shown beside it.
func (h *Handlers) ownerOptions(c echo.Context) ([]templates.Option, error) {
	users, err := h.Store.OwnerAccounts(c.Request().Context())
	if err != nil {
		return nil, err
	}
	out := make([]templates.Option, len(users))
	for n, u := range users {
		out[n] = templates.Option{Value: u.Email, Label: u.Name}
	}
	return out, nil
}
