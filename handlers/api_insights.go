package handlers

import (
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"hindsight/models"
)

// APIStats is one figure aggregated, durations in seconds; they are null when nothing valid was
// recorded. recorded counts the incidents whose figure has both milestones, invalid ones
// included; invalid ones are left out of the numbers.
type APIStats struct {
	Median   *float64 `json:"median_seconds"`
	P90      *float64 `json:"p90_seconds"`
	Mean     *float64 `json:"mean_seconds"`
	P25      *float64 `json:"p25_seconds"`
	P75      *float64 `json:"p75_seconds"`
	Min      *float64 `json:"min_seconds"`
	Max      *float64 `json:"max_seconds"`
	Recorded int      `json:"recorded"`
	Total    int      `json:"total"`
	Invalid  int      `json:"invalid"`
	// Approximate counts the recorded figures measured from or to a milestone known only to the
	// day, left out of the numbers like the invalid ones.
	Approximate int `json:"approximate"`
}

func apiStats(st models.Stats) APIStats {
	out := APIStats{Recorded: st.Recorded, Total: st.Total, Invalid: st.Invalid, Approximate: st.Approximate}
	if st.N() > 0 {
		v := []float64{st.Median, st.P90, st.Mean, st.P25, st.P75, st.Min, st.Max}
		out.Median, out.P90, out.Mean, out.P25, out.P75, out.Min, out.Max = &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]
	}
	return out
}

// apiFigures is one object per figure, keyed by the figure's name.
func apiFigures(stats []models.Stats) map[string]APIStats {
	out := make(map[string]APIStats, len(stats))
	for _, st := range stats {
		out[st.Figure] = apiStats(st)
	}
	return out
}

// APIInsights answers GET /api/v1/insights with the numbers of the insights page as JSON. The
// filter is the page's: from and to (UTC dates, to included), severity, service, region,
// detection_method (unknown for none recorded), factor (a slug), interval (month or quarter),
// group_by (severity, detection_method, service, region or factor).
func (h *Handlers) APIInsights(c echo.Context) error {
	form, filter, errs := readInsightsQuery(c.QueryParams())
	if len(errs) > 0 {
		return invalid(c, errs)
	}
	in, err := h.Store.Insights(c.Request().Context(), filter)
	if errors.Is(err, models.ErrTooMany) {
		return echo.NewHTTPError(http.StatusUnprocessableEntity, "That is more incidents than one request can aggregate; choose a shorter period.").SetInternal(err)
	}
	if err != nil {
		return err
	}
	out := map[string]any{}
	for name, st := range apiFigures(in.Figures) {
		out[name] = st
	}
	out["filter"] = map[string]string{
		"from": form.From, "to": form.To, "severity": form.Severity, "service": form.Service, "region": form.Region,
		"detection_method": form.DetectionMethod, "factor": form.Factor, "interval": in.Filter.Interval, "group_by": in.Filter.GroupBy,
		"milestone_sources": form.Sources,
	}
	out["incidents"] = in.Incidents
	out["near_misses_apart"] = in.NearMisses
	periods := make([]map[string]any, 0, len(in.Trend))
	for _, p := range in.Trend {
		periods = append(periods, map[string]any{
			"period": p.Label, "starts": p.Start.Format(time.DateOnly), "incidents": p.Incidents, "figures": apiFigures(p.Figures),
		})
	}
	out["trend"] = map[string]any{"interval": in.Filter.Interval, "periods": periods}
	groups := func(list []models.InsightGroup) []map[string]any {
		out := make([]map[string]any, 0, len(list))
		for _, g := range list {
			var key *string
			if g.Key != models.NoGroup {
				key = &g.Key
			}
			out = append(out, map[string]any{"key": key, "incidents": g.Incidents, "figures": apiFigures(g.Figures)})
		}
		return out
	}
	out["groups"] = map[string]any{"group_by": in.Filter.GroupBy, "groups": groups(in.Groups)}
	out["detection_methods"] = groups(in.Detection)
	slowest := make([]map[string]any, 0, len(in.Slowest))
	for _, r := range in.Slowest {
		slowest = append(slowest, map[string]any{
			"id": r.ID, "title": r.Title, "severity": r.Severity, "detection_method": nullable(r.DetectionMethod),
			"started_at": utcPtr(r.StartedAt), "time_to_detect_seconds": int64(r.TimeToDetect / time.Second),
			"url": incidentURL(r.ID),
		})
	}
	out["slowest_detections"] = slowest
	invalidList := make([]map[string]any, 0, len(in.InvalidIncidents))
	for _, r := range in.InvalidIncidents {
		invalidList = append(invalidList, map[string]any{"id": r.ID, "title": r.Title, "invalid": r.Invalid, "url": incidentURL(r.ID)})
	}
	out["invalid_incidents"] = map[string]any{"total": in.InvalidTotal, "listed": invalidList}
	return c.JSON(http.StatusOK, out)
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
