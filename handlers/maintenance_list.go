package handlers

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// MaintenanceList lists planned maintenance, latest first, and for a responder the form to
// schedule more.
func (h *Handlers) MaintenanceList(c echo.Context) error {
	view, err := h.maintenanceListView(c)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.MaintenanceListPage(view))
}

func (h *Handlers) maintenanceListView(c echo.Context) (templates.MaintenanceListView, error) {
	ctx := c.Request().Context()
	list, err := h.Store.ListMaintenances(ctx, models.MaintenanceFilter{})
	if err != nil {
		return templates.MaintenanceListView{}, err
	}
	components, loc, err := h.maintenanceChoices(ctx)
	if err != nil {
		return templates.MaintenanceListView{}, err
	}
	return templates.MaintenanceListView{
		Page: templates.Page{Title: "Planned maintenance", Section: "maintenance"}, Maintenances: list, Components: components,
		Location: loc, Now: time.Now(), CanEdit: CurrentUser(c).Can(models.RoleResponder),
		Form: templates.MaintenanceForm{Status: models.MaintenanceScheduled, Public: true},
	}, nil
}

// maintenanceChoices reads the components a maintenance may cover and the zone its times are
// entered in: the status page's.
func (h *Handlers) maintenanceChoices(ctx context.Context) ([]models.Component, *time.Location, error) {
	components, err := h.Store.ListComponents(ctx)
	if err != nil {
		return nil, nil, err
	}
	settings, err := h.Store.StatusSettings(ctx)
	if err != nil {
		return nil, nil, err
	}
	return components, settings.Location(), nil
}

// maintenanceForm reads a maintenance form: the values as typed, for showing again, and the
// input, with the problems beside their fields.
func maintenanceForm(form url.Values, loc *time.Location) (templates.MaintenanceForm, models.MaintenanceInput, models.FieldErrors) {
	v := templates.MaintenanceForm{
		Title: form.Get("title"), For: form.Get("scheduled_for"), Until: form.Get("scheduled_until"),
		Public: checked(form, "public"), Status: form.Get("status"), Body: form.Get("body"),
	}
	var errs models.FieldErrors
	for _, raw := range form["components"] {
		id, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			errs.Add("components", "Choose among the components listed.")
			continue
		}
		v.Components = append(v.Components, id)
	}
	in := models.MaintenanceInput{Title: v.Title, Public: v.Public, Components: v.Components}
	if t := localTime(v.For, loc, "scheduled_for", &errs); t != nil {
		in.ScheduledFor = *t
	} else if v.For == "" {
		errs.Add("scheduled_for", "When does the work start?")
	}
	if t := localTime(v.Until, loc, "scheduled_until", &errs); t != nil {
		in.ScheduledUntil = *t
	} else if v.Until == "" {
		errs.Add("scheduled_until", "When is it due to end?")
	}
	return v, in, errs
}
