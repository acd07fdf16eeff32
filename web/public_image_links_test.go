package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"hindsight/models"
	"hindsight/web"
)

// TestPublicImageLinksAreAbsolute: a published incident's images reach Statuspage clients (the
// status page's API, the incident's Statuspage export), feed readers and the Markdown download at
// absolute addresses on the configured base URL, or on the status host when there is one; the
// status page serves those addresses. An image only a private section shows is linked nowhere
// public, and its public address stays a 404.
func TestPublicImageLinksAreAbsolute(t *testing.T) {
	for _, c := range []struct{ name, statusHost, page string }{
		{"base URL", "", "https://hindsight.example.com/status"},
		{"status host", "status.example.com", "https://status.example.com"},
	} {
		t.Run(c.name, func(t *testing.T) {
			admin := newServerWith(t, web.Deps{StatusHost: c.statusHost, BaseURL: "https://hindsight.example.com"}).as(models.RoleAdmin)
			r := admin.json(http.MethodPost, "/api/v1/incidents", `{"title": "Slow uploads", "severity": "sev2", "status": "resolved",
				"time_zone": "UTC", "started_at": "2026-03-17T04:00:00Z", "resolved_at": "2026-03-17T06:00:00Z", "public": true}`)
			if r.status != http.StatusCreated {
				t.Fatalf("create: %d %s", r.status, r.body)
			}
			ctx := context.Background()
			var ids [3]int64
			for n := range ids {
				img, err := admin.store.AddImage(ctx, 1, pngLogo(t, 8+n))
				if err != nil {
					t.Fatal(err)
				}
				ids[n] = img.ID
			}
			update, postmortem, private := ids[0], ids[1], ids[2]
			body := fmt.Sprintf(`{"version": 1, "title": "Slow uploads", "severity": "sev2", "status": "resolved", "time_zone": "UTC",
				"started_at": "2026-03-17T04:00:00Z", "resolved_at": "2026-03-17T06:00:00Z", "public": true,
				"summary": "Uploads were slow.", "customer_impact": "Uploads took minutes.", "detection": "Alerts.", "response": "Restarted.",
				"root_cause": "A full disk: ![disk](/images/%d)", "postmortem_state": "published", "publish_anyway": true, "publish_reason": "test",
				"sections": [{"heading": "Internal notes", "body": "The pager: ![pager](/images/%d)", "public": false}],
				"timeline": [{"at": "2026-03-17T05:00:00Z", "kind": "status_update", "status": "identified", "public": true,
					"body": "The graph: ![p99](/images/%d)"}]}`, postmortem, private, update)
			if r := admin.json(http.MethodPut, "/api/v1/incidents/1", body); r.status != http.StatusOK {
				t.Fatalf("publish: %d %s", r.status, r.body)
			}
			at := func(id int64) string { return fmt.Sprintf("%s/images/%d", c.page, id) }
			visitor := admin.anonymous()
			for name, doc := range map[string]string{
				"incidents.json":          visitor.get("/status/api/v2/incidents.json").body,
				"the Statuspage export":   admin.get("/incidents/1/export.statuspage.json").body,
				"the feed":                visitor.get("/status/feed.atom").body,
				"incidents.json, at root": visitor.onHost(statusHostOr(c.statusHost), http.MethodGet, "/api/v2/incidents.json").body,
			} {
				if !strings.Contains(doc, at(update)) {
					t.Errorf("%s lacks the update's image at %s:\n%.2000s", name, at(update), doc)
				}
				if strings.Contains(doc, fmt.Sprintf("/images/%d", private)) {
					t.Errorf("%s links the image only a private section shows", name)
				}
				if strings.Contains(doc, "(/images/") || strings.Contains(doc, `src="/images/`) || strings.Contains(doc, "src=&#34;/images/") || strings.Contains(doc, "src=&quot;/images/") {
					t.Errorf("%s keeps a relative image link:\n%.2000s", name, doc)
				}
				if name != "the feed" && !strings.Contains(doc, at(postmortem)) {
					t.Errorf("%s lacks the postmortem's image at %s", name, at(postmortem))
				}
			}
			host := "example.com"
			path := func(id int64) string { return fmt.Sprintf("/status/images/%d", id) }
			if c.statusHost != "" {
				host, path = c.statusHost, func(id int64) string { return fmt.Sprintf("/images/%d", id) }
			}
			for id, want := range map[int64]int{update: http.StatusOK, postmortem: http.StatusOK, private: http.StatusNotFound} {
				if got := visitor.onHost(host, http.MethodGet, path(id)).status; got != want {
					t.Errorf("image %d at %s%s: %d, want %d", id, host, path(id), got, want)
				}
			}
			md := admin.get("/incidents/1/export.md").body
			for _, id := range ids {
				if !strings.Contains(md, fmt.Sprintf("](https://hindsight.example.com/images/%d)", id)) {
					t.Errorf("the Markdown download lacks image %d at the app's absolute address:\n%s", id, md)
				}
			}
		})
	}
}

func statusHostOr(host string) string {
	if host == "" {
		return "example.com"
	}
	return host
}
