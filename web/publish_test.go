package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// versionField reads the incident version a postmortem page's state form carries.
var versionField = regexp.MustCompile(`name="version" value="(\d+)"`)

func pageVersion(t *testing.T, r response) string {
	t.Helper()
	m := versionField.FindStringSubmatch(r.body)
	if m == nil {
		t.Fatalf("no version field on the page: %.800s", r.body)
	}
	return m[1]
}

// postmortemBody cuts the rendered postmortem text out of a page.
var postmortemBodyPattern = regexp.MustCompile(`(?s)<div class="prose postmortem-body">.*?</div>\s*</section>`)

func postmortemBody(t *testing.T, r response) string {
	t.Helper()
	m := postmortemBodyPattern.FindString(r.body)
	if m == "" {
		t.Fatalf("no postmortem on the page: %.1500s", r.body)
	}
	return m
}

// setState posts a postmortem state from the preview page, with the version the page showed.
func (a *app) setState(path, state string) response {
	a.t.Helper()
	t := a.t.(*testing.T)
	preview := a.get(path + "/postmortem")
	if preview.status != http.StatusOK {
		t.Fatalf("preview: status %d", preview.status)
	}
	form := url.Values{"state": {state}, "version": {pageVersion(t, preview)}}
	if state == "published" {
		// Publishing over the completeness check's findings; TestPublishOverFindings tests it.
		form.Set("publish_anyway", "true")
		form.Set("reason", "The test publishes over the completeness check.")
	}
	return a.post(path+"/postmortem/state", form)
}

func TestPublishingWorkflow(t *testing.T) {
	admin := newApp(t)
	path := admin.createIncident(with(seed000Form(), "public", "true", "customer_impact", "Pages in Canada were slow for three days."))
	responder, viewer := admin.as("responder"), admin.as("viewer")
	anonymous := admin.anonymous()

	check(t, "public before publishing", anonymous.get("/status"+path), http.StatusOK,
		[]string{"Canada - Multiple Services", "Updates"}, []string{"Routing caches", "Postmortem"})

	// Responders move the postmortem between draft and review; viewers cannot.
	check(t, "responder sends for review", responder.setState(path, "in_review"), http.StatusSeeOther, nil, nil)
	check(t, "responder back to draft", responder.setState(path, "draft"), http.StatusSeeOther, nil, nil)
	check(t, "responder sends for review again", responder.setState(path, "in_review"), http.StatusSeeOther, nil, nil)
	r := viewer.get(path + "/postmortem")
	check(t, "viewer reads the preview", r, http.StatusOK, []string{"As the status page would show it", "Routing caches"}, []string{`name="state"`})
	check(t, "viewer cannot change the state", viewer.post(path+"/postmortem/state", url.Values{"state": {"draft"}, "version": {pageVersion(t, responder.get(path+"/postmortem"))}}),
		http.StatusForbidden, nil, nil)

	// Only an admin publishes.
	check(t, "responder cannot publish", responder.setState(path, "published"), http.StatusForbidden, []string{"Only an admin may publish"}, nil)
	check(t, "unknown state", admin.setState(path, "shipped"), http.StatusUnprocessableEntity, nil, nil)
	preview := admin.get(path + "/postmortem")
	check(t, "admin preview", preview, http.StatusOK, []string{"Publish</button>", "Not published yet", "Detected 3 days 54 minutes after impact began."}, nil)
	check(t, "admin publishes", admin.post(path+"/postmortem/state", url.Values{"state": {"published"}, "publish_anyway": {"true"}, "reason": {"The test publishes over the completeness check."}, "version": {pageVersion(t, preview)}}), http.StatusSeeOther, nil, nil)

	// The preview was exactly what went out.
	public := anonymous.get("/status" + path)
	check(t, "published on the status page", public, http.StatusOK,
		[]string{"Customer Impact", "Root Cause", "Detection", "Response", "Routing caches came up <strong>cold</strong>",
			"Detected 3 days 54 minutes after impact began.", "Customer impact began Mon 9 Mar 2026 16:00 UTC and ended Thu 12 Mar 2026 17:45 UTC."}, nil)
	previewBody := postmortemBody(t, preview)
	previewBody = strings.Replace(previewBody, "Not published yet: this is the text publishing would put here.", "", 1)
	if got := postmortemBody(t, public); got != previewBody {
		t.Errorf("the status page differs from the preview:\npreview: %s\npublic:  %s", previewBody, got)
	}
	after := admin.get(path + "/postmortem")
	check(t, "preview once published", after, http.StatusOK, []string{"As the status page shows it", "None: the text below is the published version"}, []string{"Publish the changes"})
	if postmortemBody(t, after) != postmortemBody(t, public) {
		t.Error("the preview of a published postmortem differs from the status page")
	}

	// An edit after publishing stays off the status page until an admin publishes again.
	edit := responder.get(path + "/edit")
	form := with(seed000Form(), "public", "true", "postmortem_state", "published", "version", pageVersion(t, edit),
		"customer_impact", "Pages in Canada were slow for three days.", "root_cause", "Routing caches came up cold after restarts, and the cluster had no headroom.")
	check(t, "responder edits a published postmortem", responder.post(path+"/edit", form), http.StatusSeeOther, nil, nil)
	check(t, "the status page keeps the published text", anonymous.get("/status"+path), http.StatusOK,
		[]string{"Routing caches came up <strong>cold</strong> after restarts."}, []string{"no headroom"})
	diff := admin.get(path + "/postmortem")
	check(t, "the diff shows the changed lines", diff, http.StatusOK, []string{
		"Changes since version 1", "Publish the changes",
		`<span class="diff-line diff-skipped"><span class="diff-mark" aria-hidden="true">⋯</span><span class="sr-only"></span>9 unchanged lines</span>`,
		`<span class="diff-line diff-removed"><span class="diff-mark" aria-hidden="true">-</span><span class="sr-only">removed: </span>Routing caches came up **cold** after restarts.</span>`,
		`<span class="diff-line diff-added"><span class="diff-mark" aria-hidden="true">+</span><span class="sr-only">added: </span>Routing caches came up cold after restarts, and the cluster had no headroom.</span>`,
	}, nil)
	check(t, "admin publishes again", admin.setState(path, "published"), http.StatusSeeOther, nil, nil)
	check(t, "the new version is public", anonymous.get("/status"+path), http.StatusOK, []string{"no headroom", "(revision 2)"}, nil)
	check(t, "both versions are listed", admin.get(path+"/postmortem"), http.StatusOK, []string{"Published versions", "Version 2 published"}, nil)
	check(t, "the history records the publication", admin.get(path+"/history"), http.StatusOK, []string{"<dt>Published version</dt>"}, []string{"published_version"})

	// A responder cannot take it back; an admin can.
	check(t, "responder cannot unpublish", responder.setState(path, "draft"), http.StatusForbidden, []string{"Only an admin may take a published postmortem back"}, nil)
	check(t, "admin unpublishes", admin.setState(path, "in_review"), http.StatusSeeOther, nil, nil)
	check(t, "no postmortem once taken back", anonymous.get("/status"+path), http.StatusOK, nil, []string{"no headroom", "Root Cause"})
}

// TestPublishingNeedsTheVersionPreviewed proves that text changed after the preview is not
// published unseen.
func TestPublishingNeedsTheVersionPreviewed(t *testing.T) {
	admin := newApp(t)
	path := admin.createIncident(with(seed000Form(), "public", "true"))
	preview := admin.get(path + "/postmortem")
	edit := admin.get(path + "/edit")
	check(t, "edit", admin.post(path+"/edit", with(seed000Form(), "public", "true", "version", pageVersion(t, edit), "root_cause", "Changed after the preview.")), http.StatusSeeOther, nil, nil)
	r := admin.post(path+"/postmortem/state", url.Values{"state": {"published"}, "publish_anyway": {"true"}, "reason": {"The test publishes over the completeness check."}, "version": {pageVersion(t, preview)}})
	check(t, "stale publish", r, http.StatusConflict, []string{"changed since you opened this page", "Changed after the preview."}, nil)
	check(t, "nothing went out", admin.anonymous().get("/status"+path), http.StatusOK, nil, []string{"Changed after the preview."})
}

// TestResponderCannotPublishThroughTheFormOrTheAPI proves the edit form and the API hold the same
// rule as the postmortem page.
func TestResponderCannotPublishThroughTheFormOrTheAPI(t *testing.T) {
	admin := newApp(t)
	path := admin.createIncident(with(seed000Form(), "public", "true"))
	responder := admin.as("responder")

	edit := responder.get(path + "/edit")
	r := responder.post(path+"/edit", with(seed000Form(), "public", "true", "postmortem_state", "published", "version", pageVersion(t, edit)))
	check(t, "form publish by a responder", r, http.StatusForbidden, []string{"Only an admin may publish a postmortem"}, nil)
	r = responder.post("/incidents", with(seed000Form(), "postmortem_state", "published"))
	check(t, "form create published by a responder", r, http.StatusForbidden, []string{"Only an admin may publish"}, nil)

	body := map[string]any{"title": "API", "severity": "sev3", "status": "resolved", "postmortem_state": "published", "public": true}
	check(t, "API create published by a responder", responder.json(http.MethodPost, "/api/v1/incidents", body), http.StatusForbidden, []string{"Only an admin may publish"}, nil)
	body["version"] = 1
	check(t, "API update to published by a responder", responder.json(http.MethodPut, "/api/v1/incidents/1", body), http.StatusForbidden, []string{"Only an admin may publish"}, nil)
	check(t, "nothing published", admin.anonymous().get("/status"+path), http.StatusOK, nil, []string{"Routing caches"})

	// An admin may publish through the form; the status page then shows the recorded version.
	edit = admin.get(path + "/edit")
	check(t, "form publish by an admin", admin.post(path+"/edit", with(seed000Form(), "public", "true", "postmortem_state", "published", "version", pageVersion(t, edit),
		"publish_anyway", "true", "publish_reason", "The test publishes over the publish check.")), http.StatusSeeOther, nil, nil)
	check(t, "published through the form", admin.anonymous().get("/status"+path), http.StatusOK, []string{"Routing caches came up", "Root Cause"}, nil)
	// A responder may still edit it, leaving it published.
	edit = responder.get(path + "/edit")
	check(t, "responder edits a published incident", responder.post(path+"/edit", with(seed000Form(), "public", "true", "postmortem_state", "published", "version", pageVersion(t, edit), "title", "Renamed")), http.StatusSeeOther, nil, nil)
}
