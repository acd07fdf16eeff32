package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// backfilled files an incident that started in 2021 and one in 2023, both with the cold-caches
// factor, and returns their paths.
func backfilled(a *app) (earlier, later string) {
	earlier = a.createIncident(with(seed000Form(), "title", "Cold caches in 2021", "factors", "cold-caches",
		"started_at", "2021-06-01T10:00", "detected_at", "2021-06-01T11:00", "mitigated_at", "2021-06-01T12:00", "resolved_at", "2021-06-01T13:00"))
	later = a.createIncident(with(seed000Form(), "title", "Cold caches again in 2023", "factors", "cold-caches",
		"started_at", "2023-05-01T10:00", "detected_at", "2023-05-01T11:00", "mitigated_at", "2023-05-01T12:00", "resolved_at", "2023-05-01T13:00"))
	return earlier, later
}

func doneForm(doneAt string) url.Values {
	return url.Values{"title": {"Warm caches before serving"}, "kind": {"prevent"}, "priority": {"p1"}, "status": {"done"},
		"factors": {"cold-caches"}, "done_at": {doneAt}, "time_zone": {"Europe/London"}}
}

// TestFollowUpDoneDateThroughTheForm: a follow-up marked done with a 2022 date through the form
// keeps it, and the 2023 incident with the same factor came back after its fix; a date in the
// future or before the incident started is refused beside the field with the input kept.
func TestFollowUpDoneDateThroughTheForm(t *testing.T) {
	a := newApp(t)
	earlier, _ := backfilled(a)
	check(t, "no report yet", a.get("/recurrence"), http.StatusOK, nil, []string{"came back after"})

	future := time.Now().Add(48 * time.Hour).Format("2006-01-02T15:04")
	check(t, "future", a.post(earlier+"/follow-ups", doneForm(future)), http.StatusUnprocessableEntity,
		[]string{"Cannot be in the future", `value="` + future + `"`, `value="Warm caches before serving"`}, nil)
	check(t, "before the start", a.post(earlier+"/follow-ups", doneForm("2021-01-01T09:00")), http.StatusUnprocessableEntity,
		[]string{"Cannot be before the incident started (1 Jun 2021 10:00 UTC)", `value="2021-01-01T09:00"`}, nil)
	check(t, "not a date", a.post(earlier+"/follow-ups", doneForm("March 2022")), http.StatusUnprocessableEntity,
		[]string{"Not a date and time"}, nil)

	r := a.post(earlier+"/follow-ups", doneForm("2022-03-01T10:00"))
	check(t, "done in 2022", r, http.StatusSeeOther, nil, nil)
	page := a.get(earlier)
	check(t, "incident page", page, http.StatusOK, []string{`datetime="2022-03-01T10:00:00Z"`}, nil)
	check(t, "came back", a.get("/recurrence"), http.StatusOK, []string{"came back after"}, nil)

	// The edit form shows the date in the incident's zone, and keeps it when saved unchanged.
	id := r.header.Get("Location")[strings.LastIndex(r.header.Get("Location"), "-")+1:]
	edit := a.get(earlier + "?edit_follow_up=" + id)
	check(t, "edit form", edit, http.StatusOK, []string{`name="done_at" value="2022-03-01 10:00"`}, nil)
	form := doneForm("2022-03-01T10:00")
	form.Set("time_zone", "UTC")
	form.Set("version", "1")
	check(t, "save unchanged", a.post(earlier+"/follow-ups/"+id, form), http.StatusSeeOther, nil, nil)
	check(t, "still 2022", a.get(earlier), http.StatusOK, []string{`datetime="2022-03-01T10:00:00Z"`}, nil)
	form.Set("version", "2")
	form.Set("done_at", "2020-01-01T00:00")
	check(t, "edit before the start", a.post(earlier+"/follow-ups/"+id, form), http.StatusUnprocessableEntity,
		[]string{"Cannot be before the incident started", `value="2020-01-01T00:00"`}, nil)

	// Marked done with no date: now.
	before := time.Now().UTC().Truncate(time.Second)
	check(t, "done now", a.post(earlier+"/follow-ups", doneForm("")), http.StatusSeeOther, nil, nil)
	var list struct {
		FollowUps []struct {
			Title  string
			DoneAt *time.Time `json:"done_at"`
		} `json:"follow_ups"`
	}
	a.get("/api/v1/follow-ups?status=done").decode(t, &list)
	var nows int
	for _, f := range list.FollowUps {
		if f.DoneAt != nil && !f.DoneAt.Before(before) && !f.DoneAt.After(time.Now()) {
			nows++
		}
	}
	if nows != 1 {
		t.Errorf("a follow-up marked done without a date was not stamped now: %+v", list.FollowUps)
	}
}

// TestFollowUpDoneDateThroughTheAPI: the same through /api/v1/follow-ups and the incident API.
func TestFollowUpDoneDateThroughTheAPI(t *testing.T) {
	a := newApp(t)
	earlier, _ := backfilled(a)
	incidentID := strings.TrimPrefix(earlier, "/incidents/")
	body := func(doneAt string) string {
		return fmt.Sprintf(`{"incident_id": %s, "title": "Warm caches before serving", "kind": "prevent", "priority": "p1",
			"status": "done", "done_at": %q, "factors": ["cold-caches"]}`, incidentID, doneAt)
	}
	check(t, "future", a.json(http.MethodPost, "/api/v1/follow-ups", body(time.Now().Add(48*time.Hour).UTC().Format(time.RFC3339))),
		http.StatusUnprocessableEntity, []string{`"field":"done_at"`, "Cannot be in the future"}, nil)
	check(t, "before the start", a.json(http.MethodPost, "/api/v1/follow-ups", body("2021-01-01T09:00:00Z")),
		http.StatusUnprocessableEntity, []string{`"field":"done_at"`, "Cannot be before the incident started"}, nil)
	check(t, "not a time", a.json(http.MethodPost, "/api/v1/follow-ups", body("yesterday")),
		http.StatusUnprocessableEntity, []string{`"field":"done_at"`, "Not an RFC 3339 time"}, nil)
	check(t, "no report yet", a.get("/api/v1/recurrence"), http.StatusOK, nil, []string{"came_back_after_fix"})

	created := a.json(http.MethodPost, "/api/v1/follow-ups", body("2022-03-01T10:00:00+00:00"))
	check(t, "done in 2022", created, http.StatusCreated, []string{`"done_at":"2022-03-01T10:00:00Z"`}, nil)
	check(t, "came back", a.get("/api/v1/recurrence"), http.StatusOK, []string{`"came_back_after_fix"`}, nil)
	check(t, "the page too", a.get("/recurrence"), http.StatusOK, []string{"came back after"}, nil)

	var f struct {
		ID      int64 `json:"id"`
		Version int   `json:"version"`
	}
	created.decode(t, &f)
	update := fmt.Sprintf(`{"version": %d, "title": "Warm caches before serving", "kind": "prevent", "priority": "p1",
		"status": "done", "done_at": "2022-04-01T10:00:00Z", "factors": ["cold-caches"]}`, f.Version)
	check(t, "update", a.json(http.MethodPut, fmt.Sprintf("/api/v1/follow-ups/%d", f.ID), update), http.StatusOK,
		[]string{`"done_at":"2022-04-01T10:00:00Z"`}, nil)

	// The incident API's nested follow-ups take a done date and its rules too.
	incident := `{"title": "Filed with its follow-ups", "severity": "sev3", "status": "resolved", "started_at": "2021-06-01T10:00:00Z",
		"follow_ups": [{"title": "Fix", "kind": "prevent", "priority": "p2", "status": "done", "done_at": "%s"}]}`
	check(t, "nested before the start", a.json(http.MethodPost, "/api/v1/incidents", fmt.Sprintf(incident, "2021-01-01T00:00:00Z")),
		http.StatusUnprocessableEntity, []string{`"field":"follow_ups[0].done_at"`}, nil)
	check(t, "nested", a.json(http.MethodPost, "/api/v1/incidents", fmt.Sprintf(incident, "2022-01-01T00:00:00Z")),
		http.StatusCreated, []string{`"done_at":"2022-01-01T00:00:00Z"`}, nil)
}
