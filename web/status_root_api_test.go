package web_test

import (
	"net/http"
	"testing"
)

// Statuspage clients, Atlassian's own widget among them, replace a page's whole path with
// /api/v2/…: the read API answers at the root too, the same documents, public and open to other
// origins, with the maintenance lists they also ask for.
func TestStatuspageAPIAtTheRoot(t *testing.T) {
	a := newApp(t)
	check(t, "public incident", a.json(http.MethodPost, "/api/v1/incidents", `{"title": "Open outage", "severity": "sev2", "status": "investigating", "public": true, "services": ["API"]}`), http.StatusCreated, nil, nil)
	visitor := a.anonymous()
	for _, doc := range []string{"summary.json", "status.json", "components.json", "incidents.json", "incidents/unresolved.json",
		"scheduled-maintenances.json", "scheduled-maintenances/upcoming.json", "scheduled-maintenances/active.json"} {
		root := visitor.get("/api/v2/" + doc)
		check(t, "/api/v2/"+doc, root, http.StatusOK, []string{`"page":`}, nil)
		if root.header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("/api/v2/%s: Access-Control-Allow-Origin %q", doc, root.header.Get("Access-Control-Allow-Origin"))
		}
		if under := visitor.get("/status/api/v2/" + doc); under.status != http.StatusOK || under.body != root.body {
			t.Errorf("/status/api/v2/%s differs from /api/v2/%s:\n%.300s\n%.300s", doc, doc, under.body, root.body)
		}
	}
	check(t, "summary names the open incident", visitor.get("/api/v2/summary.json"), http.StatusOK, []string{"Open outage", `"scheduled_maintenances":[]`}, nil)
	check(t, "maintenances", visitor.get("/api/v2/scheduled-maintenances/upcoming.json"), http.StatusOK, []string{`"scheduled_maintenances":[]`}, nil)
	check(t, "the internal API still needs a token", visitor.get("/api/v1/incidents"), http.StatusUnauthorized, nil, nil)
}
