package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"testing"

	"hindsight/models"
)

// figureBlock is one figure on the incident page, from its opening tag to the end of its hint.
func figureBlock(t *testing.T, body, name string) string {
	t.Helper()
	m := regexp.MustCompile(`<div class="[^"]*" id="figure-` + name + `">.*?</dd></div>`).FindString(body)
	if m == "" {
		t.Fatalf("no figure %s on the page", name)
	}
	return m
}

// TestContradictingFiguresAreFlagged: seed 000's first public update (16:39) came before its
// detection (16:54); the incident page flags time to first public update as it flags an invalid
// figure, and the edit form warns beside the detection. Each other contradiction is flagged too,
// and the insights keep contradicting figures in their numbers (models.Contradictions says why).
func TestContradictingFiguresAreFlagged(t *testing.T) {
	a := newApp(t)
	a.loadDemo()
	page := a.get("/incidents/1")
	check(t, "seed 000", page, http.StatusOK, []string{"Contradicts:</strong> The first public update is before detection."}, nil)
	fig := figureBlock(t, page.body, models.FigureFirstUpdate)
	if !regexp.MustCompile(`class="figure [^"]*invalid`).MatchString(fig) {
		t.Errorf("time to first public update is not flagged like an invalid figure: %s", fig)
	}
	if ttd := figureBlock(t, page.body, models.FigureDetect); regexp.MustCompile(`invalid|Contradicts`).MatchString(ttd) {
		t.Errorf("time to detect is flagged: %s", ttd)
	}
	check(t, "seed 000 form", a.get("/incidents/1/edit"), http.StatusOK,
		[]string{`id="detected_at-warning">The first public update is before detection. It will be saved, and flagged.`}, nil)

	// The insights keep the contradicting figure: counted and not invalid.
	insights, err := a.store.Insights(context.Background(), models.InsightsFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range insights.Figures {
		if st.Figure == models.FigureFirstUpdate && (st.Invalid != 0 || st.N() == 0) {
			t.Errorf("insights left the contradicting first update out: %+v", st)
		}
	}

	// Acknowledged before detected, resolved before mitigated, a window before the start.
	path := a.createIncident(with(seed000Form(), "acknowledged_at", "2026-03-12T16:00", "resolved_at", "2026-03-12T17:00"))
	a.post(path+"/windows", url.Values{"started_at": {"2026-03-09T15:00"}, "time_zone": {"UTC"}, "level": {"degraded"}})
	page = a.get(path)
	check(t, "the others", page, http.StatusOK, []string{
		"Contradicts:</strong> Acknowledged is before detected.",
		"Contradicts:</strong> Resolved is before mitigated.",
		"Contradicts:</strong> An impact window starts before impact started.",
	}, nil)
	for _, name := range []string{models.FigureAcknowledge, models.FigureResolve, models.FigureImpact} {
		if fig := figureBlock(t, page.body, name); !regexp.MustCompile(`class="figure [^"]*invalid`).MatchString(fig) {
			t.Errorf("%s is not flagged: %s", name, fig)
		}
	}
	check(t, "the others on the form", a.get(path+"/edit"), http.StatusOK, []string{
		`id="acknowledged_at-warning">Acknowledged is before detected.`,
		`id="resolved_at-warning">Resolved is before mitigated.`,
		`id="started_at-warning">An impact window starts before impact started.`,
	}, nil)
	// A failed save keeps the warnings beside the fields it re-renders.
	check(t, "failed save", a.post(path+"/edit", with(seed000Form(), "title", "", "version", "3", "started_at", "2026-03-09T16:00")), http.StatusUnprocessableEntity,
		[]string{`id="started_at-warning">An impact window starts before impact started.`}, nil)
}
