package templates

import (
	"encoding/xml"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"hindsight/models"
)

func stripDay(t *testing.T, value string) *time.Time {
	t.Helper()
	v, err := time.Parse(time.DateOnly, value)
	if err != nil {
		t.Fatal(err)
	}
	return &v
}

var tickX = regexp.MustCompile(`<line class="(tick[^"]*)" x1="([0-9.]+)"`)

// ticks returns each tick's class and x, and fails unless the strip is well-formed XML.
func ticks(t *testing.T, svg string) (classes []string, xs []float64) {
	t.Helper()
	decoder := xml.NewDecoder(strings.NewReader(svg))
	for {
		if _, err := decoder.Token(); err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("strip is not well-formed: %v\n%s", err, svg)
			}
			break
		}
	}
	for _, m := range tickX.FindAllStringSubmatch(svg, -1) {
		x, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			t.Fatal(err)
		}
		classes, xs = append(classes, m[1]), append(xs, x)
	}
	return classes, xs
}

// TestRecurrenceStripPlacesEachStart checks a factor with few incidents: a tick at each start,
// at its place between the first and the last, titled with the listed incident, red when it
// came back.
func TestRecurrenceStripPlacesEachStart(t *testing.T) {
	first, middle, last := stripDay(t, "2022-01-01"), stripDay(t, "2023-01-01"), stripDay(t, "2024-01-01")
	span := func(at *time.Time, cameBack int) models.RecurrenceBucket {
		return models.RecurrenceBucket{From: *at, To: at.Add(time.Second), Incidents: 1, CameBack: cameBack}
	}
	r := models.FactorRecurrence{
		Factor:          models.Factor{Slug: "cold-caches", Name: `Cold <caches>`},
		IncidentCount:   3,
		FirstOccurrence: first, LastOccurrence: last,
		Timeline:  []models.RecurrenceBucket{span(first, 0), span(middle, 1), span(last, 1)},
		Incidents: []models.RecurrenceIncident{{ID: 3, Title: "Caches & more", StartedAt: last, CameBackAfter: 9}},
	}
	svg := recurrenceStrip(r)
	classes, xs := ticks(t, svg)
	if strings.Join(classes, ",") != "tick,tick came-back,tick came-back" {
		t.Errorf("classes %v", classes)
	}
	middleX := 8 + 984*middle.Sub(*first).Seconds()/last.Sub(*first).Seconds()
	if len(xs) != 3 || xs[0] != 8 || xs[2] != 992 || xs[1] < middleX-0.1 || xs[1] > middleX+0.1 {
		t.Errorf("ticks at %v, want 8, %.1f, 992", xs, middleX)
	}
	for _, want := range []string{"Cold &lt;caches&gt;: 3 incidents from 2022-01-01 to 2024-01-01", "Caches &amp; more · 2024-01-01 · came back after its fix", "1 incident · 2023-01-01"} {
		if !strings.Contains(svg, want) {
			t.Errorf("strip lacks %q:\n%s", want, svg)
		}
	}
	if recurrenceStrip(models.FactorRecurrence{IncidentCount: 1}) != "" {
		t.Error("a factor whose incidents have no start has a strip")
	}
}

// TestRecurrenceStripOfEqualSpans checks a busy factor: one tick per span, as tall as its share
// of the busiest, split where some came back, and the last span ending at the last incident.
func TestRecurrenceStripOfEqualSpans(t *testing.T) {
	first, last := stripDay(t, "2020-01-01"), stripDay(t, "2020-01-10")
	day := 24 * time.Hour
	r := models.FactorRecurrence{
		Factor: models.Factor{Slug: "retry", Name: "Retry"}, IncidentCount: 60,
		FirstOccurrence: first, LastOccurrence: last,
		Timeline: []models.RecurrenceBucket{
			{From: *first, To: first.Add(5 * day), Incidents: 40},
			{From: first.Add(5 * day), To: first.Add(10 * day), Incidents: 20, CameBack: 5},
		},
	}
	svg := recurrenceStrip(r)
	classes, xs := ticks(t, svg)
	if strings.Join(classes, ",") != "tick,tick,tick came-back" || xs[1] != xs[2] {
		t.Errorf("classes %v at %v", classes, xs)
	}
	for _, want := range []string{`x1="281.3" y1="6.0" x2="281.3" y2="32"`, `class="tick came-back" x1="773.3" y1="19.0" x2="773.3" y2="22.2"`, "40 incidents · 2020-01-01 to 2020-01-05", "20 incidents · 2020-01-06 to 2020-01-10 · 5 came back after its fix"} {
		if !strings.Contains(svg, want) {
			t.Errorf("strip lacks %q:\n%s", want, svg)
		}
	}
}
