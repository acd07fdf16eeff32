package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"hindsight/models"
	"hindsight/models/storetest"
)

// eachDB runs a route test against a server on SQLite and one on PostgreSQL.
func eachDB(t *testing.T, fn func(t *testing.T, admin *app)) {
	for _, db := range []struct {
		name  string
		store func(testing.TB) *models.Store
	}{{"sqlite", storetest.SQLite}, {"postgres", storetest.Postgres}} {
		t.Run(db.name, func(t *testing.T) { fn(t, newAppOn(t, db.store(t))) })
	}
}

// An admin adds a template with a public and an internal section and makes it sev2's default;
// a new sev2 incident's form shows its sections with their prompts; what is written there is
// saved, shown on the edit page, exported, and, where public, published with the postmortem.
func TestTemplateSectionsRoutes(t *testing.T) {
	eachDB(t, func(t *testing.T, admin *app) {
		responder := admin.as("responder")
		check(t, "templates are admin-only", responder.get("/admin/templates"), http.StatusForbidden, nil, nil)
		check(t, "built-in templates", admin.get("/admin/templates"), http.StatusOK,
			[]string{"Google SRE", "Where we got lucky", "Contributors, mitigators, risks", "Lightweight"}, nil)
		check(t, "a template needs a heading per section", admin.post("/admin/templates", url.Values{
			"name": {"Security review"}, "heading": {""}, "prompt": {"Who could read what?"},
		}), http.StatusUnprocessableEntity, []string{"Give the section a heading."}, nil)
		check(t, "add a template", admin.post("/admin/templates", url.Values{
			"name":    {"Security review"},
			"heading": {"Root cause", "Exposure", "Attack path"},
			"prompt":  {"Which conditions let it happen?", "Who could read what, and for how long?", "How did the attacker get in?"},
			"public":  {"1"}, "required": {"1", "2"},
		}), http.StatusSeeOther, nil, nil)
		check(t, "the same name again", admin.post("/admin/templates", url.Values{"name": {"Security review"}, "heading": {"X"}}),
			http.StatusUnprocessableEntity, []string{"exists already"}, nil)
		check(t, "an unknown default", admin.post("/admin/templates/defaults", url.Values{"default_sev2": {"nope"}}), http.StatusUnprocessableEntity, nil, nil)
		check(t, "sev2's default", admin.post("/admin/templates/defaults", url.Values{"default_sev2": {"security_review"}}), http.StatusSeeOther, nil, nil)

		form := responder.get("/incidents/new")
		check(t, "the new form follows sev2's default", form, http.StatusOK,
			[]string{"Following Security review.", `name="section-exposure"`, "Who could read what, and for how long?",
				"Which conditions let it happen?", `value="security_review"`}, nil)

		path := responder.createIncident(with(seed000Form(),
			"public", "true", "sections", "exposure", "section-exposure-heading", "Exposure", "section-exposure-public", "true",
			"section-exposure", "No customer data was readable.",
		))
		// The second section came from the template although the form did not post it.
		edit := responder.get(path + "/edit")
		check(t, "the edit page", edit, http.StatusOK,
			[]string{"No customer data was readable.", `name="section-attack_path"`, "How did the attacker get in?", "Published", "Internal"}, nil)
		version := pageVersion(t, edit)
		save := with(seed000Form(), "version", version, "public", "true",
			"template", "security_review", "section-exposure-heading", "Exposure", "section-exposure-public", "true",
			"section-exposure", "No customer data was readable.", "section-attack_path-heading", "Attack path",
			"section-attack_path", "A leaked token from a CI log.")
		save["sections"] = []string{"exposure", "attack_path"}
		check(t, "save the internal section", responder.post(path+"/edit", save), http.StatusSeeOther, nil, nil)
		doubled := with(seed000Form(), "version", pageVersion(t, responder.get(path+"/edit")), "section-exposure-heading", "Exposure")
		doubled["sections"] = []string{"exposure", "exposure"}
		check(t, "a section twice", responder.post(path+"/edit", doubled), http.StatusUnprocessableEntity, []string{"Two sections have this slug."}, nil)

		check(t, "Markdown export", admin.get(path+"/export.md"), http.StatusOK,
			[]string{"## Exposure\n\nNo customer data was readable.", "## Attack path\n\nA leaked token from a CI log."}, nil)
		var doc struct {
			Template string `json:"template"`
			Sections []models.IncidentSection
		}
		admin.get("/api/v1/incidents"+strings.TrimPrefix(path, "/incidents")).decode(t, &doc)
		if doc.Template != "security_review" || len(doc.Sections) != 2 || doc.Sections[1].Body != "A leaked token from a CI log." || !doc.Sections[0].Public {
			t.Errorf("API incident = %+v", doc)
		}
		check(t, "publish", admin.setState(path, "published"), http.StatusSeeOther, nil, nil)
		check(t, "the public page has the public section only", admin.anonymous().get("/status"+path), http.StatusOK,
			[]string{"Exposure", "No customer data was readable."}, []string{"Attack path", "leaked token"})
	})
}

// The preview renders a section's Markdown through the sanitiser: as a fragment for htmx, and as
// the whole form with the input kept and the preview beside the editor without JavaScript.
func TestMarkdownPreviewRoutes(t *testing.T) {
	eachDB(t, func(t *testing.T, admin *app) {
		path := admin.createIncident(seed000Form())
		text := "Caches came up **cold**. <script>alert(1)</script> [x](javascript:alert(2))"
		form := with(seed000Form(), "root_cause", text, "preview", "root_cause", "version", "1")
		form.Set("csrf_token", admin.csrf)
		r := admin.doWith(http.MethodPost, path+"/preview", form, map[string]string{"HX-Request": "true"})
		check(t, "fragment", r, http.StatusOK, []string{"<strong>cold</strong>", "&lt;script&gt;"}, []string{"<script>", "javascript:", "<html"})
		check(t, "fragment of no section", admin.doWith(http.MethodPost, path+"/preview", with(form, "preview", "title"), map[string]string{"HX-Request": "true"}),
			http.StatusUnprocessableEntity, nil, nil)
		page := admin.post(path+"/preview", form)
		check(t, "no-JS preview page", page, http.StatusOK,
			[]string{"<strong>cold</strong>", "Edit: Canada", `id="root_cause-preview"`, "Caches came up **cold**."}, []string{"<script>alert"})
		check(t, "nothing was saved", admin.get(path), http.StatusOK, []string{"Routing caches came up"}, []string{"Caches came up"})
		check(t, "new form preview", admin.post("/incidents/new/preview", with(seed000Form(), "summary", "*soon*", "preview", "summary")),
			http.StatusOK, []string{"<em>soon</em>", "File an incident"}, nil)
		check(t, "viewers cannot preview", admin.as("viewer").post(path+"/preview", form), http.StatusForbidden, nil, nil)
	})
}

// The postmortem page lists what the completeness check finds; publishing over it takes an admin's
// "publish anyway" and a reason, which the history keeps. A near miss is not asked for figures.
func TestPublishOverFindings(t *testing.T) {
	eachDB(t, func(t *testing.T, admin *app) {
		path := admin.createIncident(with(seed000Form(), "public", "true", "detected_at", "",
			"response", "Priya Raman restarted the routers."))
		if _, err := admin.store.CreateUser(t.Context(), models.UserInput{Email: "priya@example.com", Name: "Priya Raman", Role: "responder", Password: testPassword}); err != nil {
			t.Fatal(err)
		}
		pm := admin.get(path + "/postmortem")
		check(t, "findings", pm, http.StatusOK, []string{"No detection time", "No impact window", "“Priya Raman”, a account name",
			"Publish anyway"}, nil)
		version := pageVersion(t, pm)
		publish := func(kv ...string) response {
			return admin.post(path+"/postmortem/state", with(url.Values{"state": {"published"}, "version": {version}}, kv...))
		}
		check(t, "not silently", publish(), http.StatusUnprocessableEntity, []string{"tick “Publish anyway”"}, nil)
		check(t, "not without a reason", publish("publish_anyway", "true", "reason", "  "), http.StatusUnprocessableEntity, []string{"Say why"}, nil)
		check(t, "still unpublished", admin.anonymous().get("/status"+path), http.StatusOK, nil, []string{"Routing caches"})
		check(t, "anyway, with a reason", publish("publish_anyway", "true", "reason", "Customers asked for it today; detection time follows."),
			http.StatusSeeOther, nil, nil)
		check(t, "the reason is in the history", admin.get(path+"/history"), http.StatusOK,
			[]string{"Customers asked for it today; detection time follows.", "No detection time"}, nil)

		near := admin.createIncident(with(seed000Form(), "title", "Certificate nearly expired", "near_miss", "true", "detected_at", "",
			"started_at", "", "mitigated_at", "", "resolved_at", ""))
		check(t, "a near miss is not asked for figures", admin.get(near+"/postmortem"), http.StatusOK,
			[]string{"No reviewer approved"}, []string{"No detection time", "No impact window"})
	})
}

// A near miss is filed with its factors like any incident; the insights count it apart unless
// asked, and the recurrence report shows it apart and which fixes held.
func TestNearMissRoutes(t *testing.T) {
	eachDB(t, func(t *testing.T, admin *app) {
		admin.createIncident(with(seed000Form(), "factors", "cold-caches"))
		admin.createIncident(with(seed000Form(), "title", "Cache warm-up caught in staging", "near_miss", "true", "factors", "cold-caches"))
		check(t, "insights count it apart", admin.get("/insights"), http.StatusOK,
			[]string{"1 incident,", "1 near miss (no customer impact) counted apart", "near_misses=include"}, nil)
		check(t, "counted in", admin.get("/insights?near_misses=include"), http.StatusOK, []string{"2 incidents,", "Near misses counted in."}, nil)
		check(t, "only", admin.get("/insights?near_misses=only"), http.StatusOK, []string{"1 incident,", "Near misses only."}, nil)
		check(t, "a bad choice", admin.get("/insights?near_misses=some"), http.StatusUnprocessableEntity, nil, nil)
		check(t, "recurrence", admin.get("/recurrence"), http.StatusOK, []string{"Which fixes held", "+ 1 near miss"}, nil)
	})
}
