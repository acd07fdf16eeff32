package web_test

import (
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"hindsight/models"
	"hindsight/models/storetest"
	"hindsight/web"
)

// newAppOn starts a server on store and signs in as an admin.
func newAppOn(t *testing.T, store *models.Store) *app {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	return (&app{t: t, e: web.New(web.Deps{Store: store, Log: log}), store: store, jar: jar}).as(models.RoleAdmin)
}

var (
	listRow   = regexp.MustCompile(`<a href="/incidents/(\d+)">`)
	searchHit = regexp.MustCompile(`<a href="/incidents/(\d+)(?:#event-\d+)?">([^<]*)</a>|<span class="muted">in ([^<]*)</span>`)
)

// TestListTextFilterIsTheSearch proves the incident list's text filter finds what /search finds:
// for seed 000's words the list page, the API and /search name the same incidents, on SQLite and
// on PostgreSQL, and the list's other filters still narrow the result.
func TestListTextFilterIsTheSearch(t *testing.T) {
	for _, db := range []struct {
		name  string
		store func(testing.TB) *models.Store
	}{{"sqlite", storetest.SQLite}, {"postgres", storetest.Postgres}} {
		t.Run(db.name, func(t *testing.T) {
			a := newAppOn(t, db.store(t))
			a.loadDemo()
			apiIDs := func(query string) (ids []string, titles map[string]string) {
				var doc struct {
					Incidents []struct {
						ID    int64
						Title string
					}
				}
				a.get("/api/v1/incidents"+query).decode(t, &doc)
				titles = map[string]string{}
				for _, inc := range doc.Incidents {
					ids = append(ids, strconv.FormatInt(inc.ID, 10))
					titles[html.EscapeString(inc.Title)] = ids[len(ids)-1]
				}
				return ids, titles
			}
			_, titleOf := apiIDs("") // incident title → id, from the unfiltered list
			for _, word := range []string{"cache", "cold", "caches+cold", "gateway"} {
				var searched []string
				for _, m := range searchHit.FindAllStringSubmatch(a.get("/search?q="+word).body, -1) {
					id := m[1]
					if id == "" {
						id = titleOf[m[3]]
					}
					if id == "" {
						t.Fatalf("%q: a follow-up hit names an unknown incident %q", word, m[3])
					}
					searched = append(searched, id)
				}
				var listed []string
				for _, m := range listRow.FindAllStringSubmatch(a.get("/incidents?q="+word).body, -1) {
					listed = append(listed, m[1])
				}
				api, _ := apiIDs("?q=" + word)
				searched, listed, api = sorted(searched), sorted(listed), sorted(api)
				if len(searched) == 0 || !slices.Equal(searched, listed) || !slices.Equal(searched, api) {
					t.Errorf("%q: /search finds %v, /incidents lists %v, the API %v", word, searched, listed, api)
				}
			}
			check(t, "no words", a.get("/incidents?q=%22%2A%28"), http.StatusOK, []string{"No incident matches these filters."}, nil)
			check(t, "with another filter", a.get("/incidents?q=cache&severity=sev1"), http.StatusOK, nil, []string{"Canada: slow responses"})
			check(t, "with the same filter", a.get("/incidents?q=cache&severity=sev2&region=Canada"), http.StatusOK, []string{"Canada: slow responses"}, nil)
		})
	}
}

func sorted(ids []string) []string {
	slices.Sort(ids)
	return slices.Compact(ids)
}
