package handlers

import (
	"bytes"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// insightsTables are the CSV downloads of the insights page, one per chart or list.
var insightsTables = []string{"figures", "histogram", "trend", "groups", "detection", "slowest", "invalid"}

// csvListed is how many incidents the slowest and invalid downloads list.
const csvListed = 1000

// InsightsCSV answers GET /insights.csv?table=…: the numbers behind one chart of the insights
// page, under the same filter. Durations are in seconds.
func (h *Handlers) InsightsCSV(c echo.Context) error {
	q := c.QueryParams()
	_, filter, errs := readInsightsQuery(q)
	table := q.Get("table")
	known := false
	for _, t := range insightsTables {
		known = known || t == table
	}
	if !known {
		errs.Add("table", "Must be one of: "+strings.Join(insightsTables, ", ")+".")
	}
	if len(errs) > 0 {
		return echo.NewHTTPError(http.StatusUnprocessableEntity, "The download cannot be made: "+errs.Error()).SetInternal(errs)
	}
	filter.SlowestListed, filter.InvalidListed = csvListed, csvListed
	result, err := h.Store.Insights(c.Request().Context(), filter)
	if errors.Is(err, models.ErrTooMany) {
		return echo.NewHTTPError(http.StatusUnprocessableEntity, "That is more incidents than one download can aggregate; choose a shorter period.").SetInternal(err)
	}
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	w := newCSVWriter(&buf)
	writeInsightsTable(w, table, result, q.Get("figure"))
	if err := w.Flush(); err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderContentDisposition, `attachment; filename="hindsight-insights-`+table+`.csv"`)
	return c.Blob(http.StatusOK, "text/csv; charset=utf-8", buf.Bytes())
}

var statsHeader = []string{"median_seconds", "p90_seconds", "mean_seconds", "p25_seconds", "p75_seconds", "min_seconds", "max_seconds", "recorded", "total", "invalid", "approximate"}

// statsCells writes a figure's numbers; they are empty when nothing was recorded.
func statsCells(st models.Stats) []string {
	cells := make([]string, 0, len(statsHeader))
	for _, v := range []float64{st.Median, st.P90, st.Mean, st.P25, st.P75, st.Min, st.Max} {
		if st.N() == 0 {
			cells = append(cells, "")
		} else {
			cells = append(cells, strconv.FormatFloat(v, 'f', -1, 64))
		}
	}
	return append(cells, strconv.Itoa(st.Recorded), strconv.Itoa(st.Total), strconv.Itoa(st.Invalid), strconv.Itoa(st.Approximate))
}

func writeInsightsTable(w *csvWriter, table string, in *models.Insights, figure string) {
	if figure == "" {
		figure = models.FigureDetect
	}
	row := w.Write
	switch table {
	case "figures":
		row(append([]string{"figure"}, statsHeader...)...)
		for _, st := range in.Figures {
			row(append([]string{st.Figure}, statsCells(st)...)...)
		}
	case "histogram":
		row(append([]string{"bin", "from_seconds", "to_seconds"}, models.InsightFigures...)...)
		for n, label := range templates.HistogramLabels {
			from, to := "0", ""
			if n > 0 {
				from = strconv.FormatInt(models.HistogramEdges[n-1], 10)
			}
			if n < len(models.HistogramEdges) {
				to = strconv.FormatInt(models.HistogramEdges[n], 10)
			}
			cells := []string{label, from, to}
			for _, st := range in.Figures {
				cells = append(cells, strconv.Itoa(st.Histogram[n]))
			}
			row(cells...)
		}
	case "trend":
		header := []string{in.Filter.Interval, "starts", "incidents"}
		for _, f := range models.InsightFigures {
			for _, h := range statsHeader[:3] {
				header = append(header, f+"_"+h)
			}
			header = append(header, f+"_recorded", f+"_invalid")
		}
		row(header...)
		for _, p := range in.Trend {
			cells := []string{p.Label, p.Start.Format(time.DateOnly), strconv.Itoa(p.Incidents)}
			for _, st := range p.Figures {
				s := statsCells(st)
				cells = append(cells, s[0], s[1], s[2], s[7], s[9])
			}
			row(cells...)
		}
	case "groups", "detection":
		groups, groupBy, name := in.Groups, in.Filter.GroupBy, figure
		if table == "detection" {
			groups, groupBy, name = in.Detection, "detection_method", models.FigureDetect
		}
		row(append([]string{groupBy, "incidents", "figure"}, statsHeader...)...)
		for _, g := range groups {
			key := g.Key
			if key == models.NoGroup {
				key = "(none)"
			}
			row(append([]string{key, strconv.Itoa(g.Incidents), name}, statsCells(g.Figure(name))...)...)
		}
	case "slowest":
		row("id", "title", "severity", "detection_method", "started_at", "time_to_detect_seconds")
		for _, r := range in.Slowest {
			row(strconv.FormatInt(r.ID, 10), r.Title, r.Severity, r.DetectionMethod, startedCell(r), strconv.FormatInt(int64(r.TimeToDetect/time.Second), 10))
		}
	case "invalid":
		row("id", "title", "started_at", "invalid_figures")
		for _, r := range in.InvalidIncidents {
			row(strconv.FormatInt(r.ID, 10), r.Title, startedCell(r), strings.Join(r.Invalid, " "))
		}
	}
}

func startedCell(r models.IncidentRef) string {
	if r.StartedAt == nil {
		return ""
	}
	return r.StartedAt.UTC().Format(time.RFC3339)
}
