package handlers

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// stripPlotLimit is the largest group whose incidents the box plots draw one by one; the store's
// insights cache and its warm-up compute for it.
const stripPlotLimit = models.StripPlotLimit

// insightsQuery holds the insights filter's enumerated values for the validator; the dates are
// read apart, so a bad one gets a message that says how to write it.
type insightsQuery struct {
	Severity        string `json:"severity" validate:"omitempty,oneof=sev1 sev2 sev3 sev4"`
	Service         string `json:"service" validate:"max=100"`
	Region          string `json:"region" validate:"max=100"`
	DetectionMethod string `json:"detection_method" validate:"omitempty,oneof=automated_alert synthetic_monitor customer_report staff_report other unknown"`
	Factor          string `json:"factor" validate:"max=60"`
	Interval        string `json:"interval" validate:"omitempty,oneof=month quarter"`
	GroupBy         string `json:"group_by" validate:"omitempty,oneof=severity detection_method service region factor"`
	Sources         string `json:"milestone_sources" validate:"omitempty,oneof=machine"`
	Figure          string `json:"figure" validate:"omitempty,oneof=time_to_detect time_to_acknowledge time_to_mitigate time_to_resolve impact time_to_first_public_update"`
	NearMisses      string `json:"near_misses" validate:"omitempty,oneof=include only"`
}

// readInsightsQuery reads the filter shared by the insights page, its CSV downloads and the API:
// from and to are UTC dates, to included.
func readInsightsQuery(q url.Values) (templates.InsightsForm, models.InsightsFilter, models.FieldErrors) {
	form := templates.InsightsForm{
		From: strings.TrimSpace(q.Get("from")), To: strings.TrimSpace(q.Get("to")),
		Severity: q.Get("severity"), Service: strings.TrimSpace(q.Get("service")), Region: strings.TrimSpace(q.Get("region")),
		DetectionMethod: q.Get("detection_method"), Factor: strings.TrimSpace(q.Get("factor")),
		Interval: q.Get("interval"), GroupBy: q.Get("group_by"), Figure: q.Get("figure"),
		Sources: q.Get("milestone_sources"), NearMisses: q.Get("near_misses"),
	}
	errs := models.Validate(insightsQuery{
		Severity: form.Severity, Service: form.Service, Region: form.Region, DetectionMethod: form.DetectionMethod,
		Factor: form.Factor, Interval: form.Interval, GroupBy: form.GroupBy, Figure: form.Figure, Sources: form.Sources, NearMisses: form.NearMisses,
	})
	filter := models.InsightsFilter{
		Severity: form.Severity, Service: form.Service, Region: form.Region, DetectionMethod: form.DetectionMethod,
		Factor: form.Factor, Interval: form.Interval, GroupBy: form.GroupBy, Sources: form.Sources, NearMisses: form.NearMisses,
	}
	date := func(field, value string) *time.Time {
		if value == "" {
			return nil
		}
		d, err := time.Parse(time.DateOnly, value)
		if err != nil {
			errs.Add(field, "Not a date; write it as 2026-03-31.")
			return nil
		}
		return &d
	}
	from, to := date("from", form.From), date("to", form.To)
	if from != nil && to != nil && to.Before(*from) {
		errs.Add("to", "The period ends before it starts.")
	}
	filter.From = from
	if to != nil {
		// The "to" day is included: the period ends at the start of the next.
		end := to.AddDate(0, 0, 1)
		filter.To = &end
	}
	return form, filter, errs
}

// Insights shows the insights page: distributions, trend, groups, detection, slowest detections.
func (h *Handlers) Insights(c echo.Context) error {
	ctx := c.Request().Context()
	form, filter, errs := readInsightsQuery(c.QueryParams())
	services, err := h.Store.ServiceNames(ctx)
	if err != nil {
		return err
	}
	regions, err := h.Store.RegionNames(ctx)
	if err != nil {
		return err
	}
	factors, err := h.Store.ListFactors(ctx)
	if err != nil {
		return err
	}
	view := templates.InsightsView{
		Page: templates.Page{Title: "Insights", Section: "insights"}, Form: form, Errors: errs,
		Services: services, Regions: regions, Presets: presets(form, time.Now()),
	}
	for _, f := range factors {
		view.Factors = append(view.Factors, templates.Option{Value: f.Slug, Label: f.Name})
	}
	if len(errs) > 0 {
		return render(c, http.StatusUnprocessableEntity, templates.InsightsPage(view))
	}
	filter.KeepValues = stripPlotLimit
	view.Result, err = h.Store.Insights(ctx, filter)
	if errors.Is(err, models.ErrTooMany) {
		return echo.NewHTTPError(http.StatusUnprocessableEntity, "That is more incidents than one page can aggregate; choose a shorter period.").SetInternal(err)
	}
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.InsightsPage(view))
}

// presets are the periods offered in one click, counted back from today in UTC, keeping the
// other filters.
func presets(form templates.InsightsForm, now time.Time) []templates.Preset {
	today := now.UTC().Format(time.DateOnly)
	at := func(label string, from string) templates.Preset {
		f := form
		f.From, f.To = from, ""
		if from != "" {
			f.To = today
		}
		return templates.Preset{Label: label, URL: "/insights?" + f.Query().Encode(), Current: form.From == f.From && form.To == f.To}
	}
	day := func(years, months, days int) string {
		return now.UTC().AddDate(years, months, days).Format(time.DateOnly)
	}
	return []templates.Preset{
		at("Last 30 days", day(0, 0, -29)),
		at("Last 90 days", day(0, 0, -89)),
		at("Last 12 months", day(0, -12, 1)),
		at("All time", ""),
	}
}
