package web_test

import (
	"encoding/json"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

const baseURL = "https://hindsight.example.org"

// forged sends a GET whose Host and forwarding headers name another site, as a client (or a
// cache poisoner) may: nothing absolute in the answer may come from them.
func (a *app) forged(path string) response {
	a.t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Host = "evil.example"
	req.Header.Set("X-Forwarded-Host", "evil.example")
	req.Header.Set("X-Forwarded-Proto", "gopher")
	for _, c := range a.jar.Cookies(siteURL) {
		req.AddCookie(c)
	}
	rec := httptest.NewRecorder()
	a.e.ServeHTTP(rec, req)
	a.jar.SetCookies(siteURL, rec.Result().Cookies())
	return response{rec.Code, rec.Body.String(), rec.Header()}
}

// feedLinkToken reads the secret of the feed link the account page shows once.
func feedLinkToken(t *testing.T, a *app, owner string) string {
	t.Helper()
	check(t, "feed link for "+owner, a.post("/account/feeds", url.Values{"owner": {owner}}), http.StatusSeeOther, nil, nil)
	page := a.forged("/account")
	m := regexp.MustCompile(`(\S+)/feeds/([A-Za-z0-9_-]+)/follow-ups\.atom`).FindStringSubmatch(html.UnescapeString(page.body))
	if m == nil {
		t.Fatalf("no feed link on the account page: %.2000s", page.body)
	}
	if m[1] != baseURL {
		t.Errorf("the account page offers feed links under %q, want %q", m[1], baseURL)
	}
	return m[2]
}

// checkFeed parses an Atom feed and checks what RFC 4287 asks (an author, a self link) and that
// every id and link is under the configured base URL. It returns the feed.
func checkFeed(t *testing.T, name string, r response, selfPath string) atomDoc {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("%s: status %d: %.300s", name, r.status, r.body)
	}
	if strings.Contains(r.body, "evil.example") || strings.Contains(r.body, "gopher:") {
		t.Errorf("%s: the forged host reached the feed:\n%.1500s", name, r.body)
	}
	doc := parseAtom(t, r.body)
	if len(doc.Authors) == 0 || doc.Authors[0].Name == "" {
		t.Errorf("%s: no feed author", name)
	}
	if self := link(doc.Links, "self"); self != baseURL+selfPath {
		t.Errorf("%s: rel=self %q, want %q", name, self, baseURL+selfPath)
	}
	under := func(what, v string) {
		if !strings.HasPrefix(v, baseURL+"/") {
			t.Errorf("%s: %s %q is not under %s", name, what, v, baseURL)
		}
	}
	under("feed id", doc.ID)
	under("feed link", link(doc.Links, "alternate"))
	ids := map[string]bool{}
	for _, e := range doc.Entries {
		under("entry id", e.ID)
		under("entry link", link(e.Links, "alternate"))
		if ids[e.ID] {
			t.Errorf("%s: entry id %q twice", name, e.ID)
		}
		ids[e.ID] = true
	}
	return doc
}

// TestFeedsUseTheConfiguredBaseURL: with a base URL saved on the settings page, requests with a
// forged Host get feeds, links and documents built on that base URL alone; each follow-up feed
// has its own id; and user text reaches feed readers as text, never as markup.
func TestFeedsUseTheConfiguredBaseURL(t *testing.T) {
	admin := newApp(t)
	settings := admin.get("/admin/settings")
	check(t, "settings page", settings, http.StatusOK, []string{`name="base_url"`}, nil)
	check(t, "a base URL with a query is refused", admin.post("/admin/settings", url.Values{"name": {"Example status"}, "time_zone": {"UTC"}, "base_url": {"https://x.example/?a=1"}}), http.StatusUnprocessableEntity, []string{"without a user, a query or a fragment"}, nil)
	check(t, "a javascript: base URL is refused", admin.post("/admin/settings", url.Values{"name": {"Example status"}, "time_zone": {"UTC"}, "base_url": {"javascript:alert(1)"}}), http.StatusUnprocessableEntity, nil, nil)
	check(t, "save the base URL", admin.post("/admin/settings", url.Values{"name": {"Example status"}, "time_zone": {"UTC"}, "base_url": {baseURL + "/"}}), http.StatusSeeOther, nil, nil)
	check(t, "the settings page shows it", admin.get("/admin/settings"), http.StatusOK, []string{`value="` + baseURL + `"`}, nil)

	payload := `<img src=x onerror=alert(1)> & <b>`
	path := admin.createIncident(with(seed000Form(), "public", "true", "status", "investigating", "mitigated_at", "", "resolved_at", ""))
	admin.post(path+"/events", url.Values{"at": {"2026-03-12T17:00"}, "time_zone": {"UTC"}, "kind": {"status_update"}, "status": {"identified"}, "body": {"Cause " + payload}, "public": {"true"}})
	for _, owner := range []string{"alice@example.com", "bob@example.com"} {
		check(t, "follow-up of "+owner, admin.post(path+"/follow-ups", url.Values{
			"title": {"Warm caches " + payload}, "kind": {"prevent"}, "priority": {"p1"}, "status": {"open"}, "owner": {owner}, "due_on": {"2026-04-30"},
		}), http.StatusSeeOther, nil, nil)
	}

	status := checkFeed(t, "status feed", admin.anonymous().forged("/status/feed.atom"), "/status/feed.atom")
	if status.ID != baseURL+"/status" || len(status.Entries) != 1 || status.Entries[0].ID != baseURL+"/status/incidents/1" {
		t.Errorf("status feed id %q, entries %+v", status.ID, status.Entries)
	}

	all := checkFeed(t, "follow-up feed", admin.forged("/follow-ups/feed.atom"), "/follow-ups/feed.atom")
	feedIDs := map[string]string{all.ID: "every follow-up"}
	for _, owner := range []string{"alice@example.com", "bob@example.com"} {
		token := feedLinkToken(t, admin, owner)
		doc := checkFeed(t, "feed of "+owner, admin.anonymous().forged("/feeds/"+token+"/follow-ups.atom"), "/feeds/"+token+"/follow-ups.atom")
		if other, dup := feedIDs[doc.ID]; dup {
			t.Errorf("the feed of %s has the id %q of the feed of %s", owner, doc.ID, other)
		}
		feedIDs[doc.ID] = owner
		if len(doc.Entries) != 1 {
			t.Fatalf("feed of %s: %d entries", owner, len(doc.Entries))
		}
		text := readerText(t, "feed of "+owner, doc.Entries[0].Summary)
		if !strings.Contains(text, "Warm caches "+payload) {
			t.Errorf("feed of %s: a reader shows %q, want the title as typed", owner, text)
		}
		ics := admin.anonymous().forged("/feeds/" + token + "/calendar.ics")
		if !strings.Contains(ics.body, "URL:"+baseURL+"/follow-ups/") || strings.Contains(ics.body, "evil.example") {
			t.Errorf("calendar of %s: %q", owner, ics.body)
		}
	}
	for _, e := range all.Entries {
		readerText(t, "follow-up feed", e.Summary)
	}

	var summary struct {
		Page struct {
			URL string `json:"url"`
		} `json:"page"`
	}
	r := admin.anonymous().forged("/status/api/v2/summary.json")
	if err := json.Unmarshal([]byte(r.body), &summary); err != nil || summary.Page.URL != baseURL+"/status" {
		t.Errorf("summary.json page url %q (%v)", summary.Page.URL, err)
	}
}
