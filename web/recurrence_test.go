package web_test

import (
	"fmt"
	"net/http"
	"testing"

	"hindsight/models/storetest"
)

type recurrenceAPI struct {
	Limit   int `json:"limit"`
	Factors []struct {
		Slug          string `json:"slug"`
		IncidentCount int    `json:"incident_count"`
		Incidents     []struct {
			ID            int64  `json:"id"`
			CameBackAfter *int64 `json:"came_back_after_follow_up_id"`
		} `json:"incidents"`
		FollowUpCount     int            `json:"follow_up_count"`
		FollowUpsByStatus map[string]int `json:"follow_ups_by_status"`
		FollowUps         []struct {
			ID int64 `json:"id"`
		} `json:"follow_ups"`
		CameBack int      `json:"came_back_count"`
		Flags    []string `json:"flags"`
	} `json:"factors"`
}

// TestRecurrenceListsAreCapped checks that the API lists at most limit incidents and follow-ups
// per factor while its counts cover them all, that the page shows ten of each and says how many
// more there are, and that neither runs more statements as incidents and follow-ups grow.
func TestRecurrenceListsAreCapped(t *testing.T) {
	a := newApp(t)
	storetest.Fill(t, a.store, 6)
	storetest.FillFollowUps(t, a.store, 1)
	fewPage, fewAPI := a.statements("/recurrence"), a.statements("/api/v1/recurrence")
	storetest.Fill(t, a.store, 120)
	storetest.FillFollowUps(t, a.store, 2)
	if page, api := a.statements("/recurrence"), a.statements("/api/v1/recurrence"); page != fewPage || api != fewAPI {
		t.Errorf("statements: page %d then %d, API %d then %d", fewPage, page, fewAPI, api)
	}

	var all, two, none recurrenceAPI
	a.json(http.MethodGet, "/api/v1/recurrence?limit=1000", nil).decode(t, &all)
	a.json(http.MethodGet, "/api/v1/recurrence?limit=2", nil).decode(t, &two)
	a.json(http.MethodGet, "/api/v1/recurrence?limit=0", nil).decode(t, &none)
	if all.Limit != 1000 || two.Limit != 2 || none.Limit != 0 || len(all.Factors) != 9 || len(two.Factors) != 9 || len(none.Factors) != 9 {
		t.Fatalf("limits %d, %d, %d; factors %d, %d, %d", all.Limit, two.Limit, none.Limit, len(all.Factors), len(two.Factors), len(none.Factors))
	}
	for n, f := range all.Factors {
		capped, bare := two.Factors[n], none.Factors[n]
		if f.IncidentCount != len(f.Incidents) || f.FollowUpCount != len(f.FollowUps) || f.IncidentCount < 10 || f.FollowUpCount < 10 {
			t.Errorf("%s: %d incidents listed of %d, %d follow-ups of %d", f.Slug, len(f.Incidents), f.IncidentCount, len(f.FollowUps), f.FollowUpCount)
		}
		if capped.Slug != f.Slug || len(capped.Incidents) != 2 || len(capped.FollowUps) != 2 || capped.IncidentCount != f.IncidentCount ||
			capped.FollowUpCount != f.FollowUpCount || capped.CameBack != f.CameBack || fmt.Sprint(capped.Flags) != fmt.Sprint(f.Flags) {
			t.Errorf("%s capped at 2: %+v", f.Slug, capped)
		}
		if capped.Incidents[0].ID != f.Incidents[0].ID || capped.Incidents[1].ID != f.Incidents[1].ID || capped.FollowUps[1].ID != f.FollowUps[1].ID {
			t.Errorf("%s capped at 2 does not list the first two", f.Slug)
		}
		if len(bare.Incidents) != 0 || len(bare.FollowUps) != 0 || bare.IncidentCount != f.IncidentCount || fmt.Sprint(bare.FollowUpsByStatus) != fmt.Sprint(f.FollowUpsByStatus) {
			t.Errorf("%s with limit 0: %+v", f.Slug, bare)
		}
		cameBack := 0
		for _, inc := range f.Incidents {
			if inc.CameBackAfter != nil {
				cameBack++
			}
		}
		if cameBack != f.CameBack {
			t.Errorf("%s: %d listed incidents came back, the count says %d", f.Slug, cameBack, f.CameBack)
		}
	}
	for _, bad := range []string{"-1", "1001", "ten"} {
		check(t, "limit "+bad, a.json(http.MethodGet, "/api/v1/recurrence?limit="+bad, nil), 422, []string{`"field":"limit"`, "from 0 to 1000"}, nil)
	}

	first := all.Factors[0]
	check(t, "page", a.get("/recurrence"), 200, []string{
		fmt.Sprintf("and %d earlier.", first.IncidentCount-10),
		fmt.Sprintf("and %d more.", first.FollowUpCount-10),
		fmt.Sprintf("%d of %d", first.FollowUpsByStatus["done"], first.FollowUpCount),
		`class="recurrence-strip"`,
	}, nil)
}
