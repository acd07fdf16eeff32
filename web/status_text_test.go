package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestStatusUpdatesShowAngleBracketsAsText: a public update that mentions <tags> shows them as
// text on the status page, the incident's status page and the status feed, instead of losing
// them, while an element in the same text stays inert.
func TestStatusUpdatesShowAngleBracketsAsText(t *testing.T) {
	admin := newApp(t)
	path := admin.createIncident(with(seed000Form(), "public", "true", "status", "investigating", "mitigated_at", "", "resolved_at", ""))
	body := "We found the <tags> & ampersands; <img src=x onerror=alert(1)> stays text."
	check(t, "update", admin.post(path+"/events", url.Values{"at": {"2026-03-12T17:00"}, "time_zone": {"UTC"}, "kind": {"status_update"}, "status": {"identified"}, "body": {body}, "public": {"true"}}), http.StatusSeeOther, nil, nil)

	anonymous := admin.anonymous()
	shown := "We found the &lt;tags&gt; &amp; ampersands; &lt;img src=x onerror=alert(1)&gt; stays text."
	for _, page := range []string{"/status", "/status" + path} {
		r := anonymous.get(page)
		check(t, page, r, http.StatusOK, []string{shown}, nil)
		if live := liveMarkup(t, r.body); len(live) > 0 {
			t.Errorf("%s: live markup %v", page, live)
		}
	}
	feed := anonymous.get("/status/feed.atom")
	doc := parseAtom(t, feed.body)
	if len(doc.Entries) != 1 {
		t.Fatalf("status feed: %d entries", len(doc.Entries))
	}
	if text := readerText(t, "status feed", doc.Entries[0].Content); !strings.Contains(text, "We found the <tags> & ampersands; <img src=x onerror=alert(1)> stays text.") {
		t.Errorf("status feed entry reads %q", text)
	}
}
