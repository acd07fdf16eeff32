package web_test

import (
	"net/http"
	"testing"

	"hindsight/models"
)

// A responder could take a published postmortem off the status page by making the incident
// private or deleting it; only an admin may, on every route.
func TestOnlyAnAdminTakesAPublishedIncidentOffTheStatusPage(t *testing.T) {
	admin := newApp(t)
	published := `{"title": "Published outage", "severity": "sev2", "status": "resolved", "public": true, "postmortem_state": "published", "root_cause": "Cold caches.",
		"publish_anyway": true, "publish_reason": "The test publishes over the publish check."}`
	check(t, "admin publishes", admin.json(http.MethodPost, "/api/v1/incidents", published), http.StatusCreated, nil, nil)
	check(t, "draft", admin.json(http.MethodPost, "/api/v1/incidents", `{"title": "Draft outage", "severity": "sev3", "status": "resolved", "public": true}`), http.StatusCreated, nil, nil)
	responder := admin.as(models.RoleResponder)
	onStatusPage := func(name string) {
		t.Helper()
		check(t, name, admin.anonymous().get("/status/incidents/1"), http.StatusOK, []string{"Published outage"}, nil)
	}

	// Created over the publish check's findings, then published: version 2.
	hide := `{"version": 2, "title": "Published outage", "severity": "sev2", "status": "resolved", "public": false, "postmortem_state": "published"}`
	check(t, "responder hides via API", responder.json(http.MethodPut, "/api/v1/incidents/1", hide), http.StatusForbidden, []string{"Only an admin"}, nil)
	onStatusPage("after the API hide")
	check(t, "responder deletes via API", responder.json(http.MethodDelete, "/api/v1/incidents/1", nil), http.StatusForbidden, []string{"Only an admin"}, nil)
	onStatusPage("after the API delete")
	responder.get("/incidents/1")
	check(t, "responder deletes via the form", responder.post("/incidents/1/delete", nil), http.StatusForbidden, nil, nil)
	onStatusPage("after the form delete")
	responder.get("/incidents/1/edit")
	form := with(seed000Form(), "title", "Published outage", "postmortem_state", "published", "version", "1")
	form.Del("public")
	check(t, "responder hides via the form", responder.post("/incidents/1/edit", form), http.StatusForbidden, nil, nil)
	onStatusPage("after the form hide")

	// What is not published stays the responder's to change, and an admin may do either.
	check(t, "responder deletes a draft", responder.json(http.MethodDelete, "/api/v1/incidents/2", nil), http.StatusNoContent, nil, nil)
	check(t, "admin hides", admin.json(http.MethodPut, "/api/v1/incidents/1", hide), http.StatusOK, []string{`"public":false`}, nil)
	check(t, "gone from the status page", admin.anonymous().get("/status/incidents/1"), http.StatusNotFound, nil, nil)
	check(t, "admin deletes", admin.json(http.MethodDelete, "/api/v1/incidents/1", nil), http.StatusNoContent, nil, nil)
}
