package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"hindsight/models"
)

var webhookSecretPattern = regexp.MustCompile(`whsec_[A-Za-z0-9+/=]{32}`)

// TestWebhookAdminPages: an admin adds an endpoint, sees its secret once, edits it, reads its
// delivery log, redelivers and deletes; bad input is shown beside the fields with nothing saved;
// other roles are turned away.
func TestWebhookAdminPages(t *testing.T) {
	admin := newApp(t)
	check(t, "empty list", admin.get("/admin/webhooks"), http.StatusOK, []string{"No webhook endpoints yet", `href="/admin/webhooks/new"`}, nil)
	admin.get("/admin/webhooks/new")

	bad := admin.post("/admin/webhooks", url.Values{"url": {"hooks.example.com"}, "format": {"standard"}})
	check(t, "bad input", bad, http.StatusUnprocessableEntity, []string{
		`<p class="field-error" id="url-error">Enter a full http:// or https:// URL`,
		`<p class="field-error" id="events-error">Choose at least one event to send.</p>`,
		`value="hooks.example.com"`, "Nothing was saved",
	}, []string{"whsec_"})
	private := admin.post("/admin/webhooks", url.Values{"url": {"http://10.0.0.7/hook"}, "events": {"incident.created"}, "format": {"standard"}})
	check(t, "private address", private, http.StatusUnprocessableEntity, []string{`id="url-error">This URL points at a loopback, private or link-local address`, `value="incident.created" checked`}, nil)
	if list, _ := admin.store.WebhookEndpoints(context.Background()); len(list) != 0 {
		t.Fatalf("bad input saved %d endpoints", len(list))
	}

	created := admin.post("/admin/webhooks", url.Values{
		"url": {"https://hooks.example.com/hindsight"}, "description": {"on-call channel"},
		"events": {"incident.created", "postmortem.published"}, "format": {"slack"},
	})
	if created.status != http.StatusSeeOther {
		t.Fatalf("create: %d %.300s", created.status, created.body)
	}
	page := created.header.Get("Location")
	shown := admin.get(page)
	check(t, "endpoint page", shown, http.StatusOK, []string{"shown only once", `value="incident.created" checked`, `value="slack" selected`, "Nothing sent yet"}, nil)
	secret := webhookSecretPattern.FindString(shown.body)
	list, err := admin.store.WebhookEndpoints(context.Background())
	if err != nil || len(list) != 1 {
		t.Fatalf("endpoints: %v %v", list, err)
	}
	ep := list[0]
	if secret == "" || secret != ep.Secret {
		t.Errorf("the page showed secret %q, the endpoint has %q", secret, ep.Secret)
	}
	check(t, "secret shown once", admin.get(page), http.StatusOK, nil, []string{"whsec_"})
	check(t, "list", admin.get("/admin/webhooks"), http.StatusOK, []string{"https://hooks.example.com/hindsight", "on-call channel", "Slack-compatible", "2 of 8"}, []string{"whsec_"})

	badEdit := admin.post(page, url.Values{"url": {"https://hooks.example.com/hindsight"}, "format": {"standard"}, "enabled": {"true"}})
	check(t, "edit without events", badEdit, http.StatusUnprocessableEntity, []string{`id="events-error">Choose at least one event`}, nil)
	edited := admin.post(page, url.Values{"url": {"https://hooks.example.com/v2"}, "events": {"incident.created", "timeline.created"}, "format": {"standard"}, "enabled": {"true"}})
	if edited.status != http.StatusSeeOther {
		t.Fatalf("edit: %d %.300s", edited.status, edited.body)
	}
	if got, _ := admin.store.WebhookEndpoint(context.Background(), ep.ID); got.URL != "https://hooks.example.com/v2" || got.Events != "incident.created timeline.created" || got.Secret != ep.Secret {
		t.Errorf("after the edit: %+v", got)
	}

	// A write queues a delivery; the log lists it and it can be redelivered.
	admin.createIncident(seed000Form())
	logPage := admin.get(page)
	check(t, "delivery log", logPage, http.StatusOK, []string{"<code>incident.created</code>", "Queued", "not tried yet", "Redeliver"}, nil)
	deliveries, _ := admin.store.WebhookDeliveries(context.Background(), ep.ID, 10)
	if len(deliveries) != 1 {
		t.Fatalf("%d deliveries", len(deliveries))
	}
	redeliver := page + "/deliveries/" + itoa(deliveries[0].ID) + "/redeliver"
	check(t, "redeliver", admin.post(redeliver, nil), http.StatusSeeOther, nil, nil)
	check(t, "redeliver another endpoint's", admin.post("/admin/webhooks/"+itoa(ep.ID+1)+"/deliveries/"+itoa(deliveries[0].ID)+"/redeliver", nil), http.StatusNotFound, nil, nil)

	for _, role := range []string{models.RoleResponder, models.RoleViewer} {
		other := admin.as(role)
		if r := other.get("/admin/webhooks"); r.status != http.StatusForbidden {
			t.Errorf("%s reads the webhooks: %d", role, r.status)
		}
		if r := other.get(page); r.status != http.StatusForbidden || strings.Contains(r.body, "whsec_") {
			t.Errorf("%s reads an endpoint: %d", role, r.status)
		}
		if r := other.post(page+"/delete", nil); r.status != http.StatusForbidden {
			t.Errorf("%s deletes an endpoint: %d", role, r.status)
		}
	}
	if r := admin.postRaw(page+"/delete", url.Values{}); r.status != http.StatusForbidden {
		t.Errorf("delete without a CSRF token: %d", r.status)
	}

	check(t, "delete", admin.post(page+"/delete", nil), http.StatusSeeOther, nil, nil)
	check(t, "after delete", admin.get("/admin/webhooks"), http.StatusOK, []string{"Endpoint deleted", "No webhook endpoints yet"}, nil)
	check(t, "deleted page", admin.get(page), http.StatusNotFound, nil, nil)
}

// TestSwitchedOffEndpointNotice: an endpoint the workers switched off says so on the list.
func TestSwitchedOffEndpointNotice(t *testing.T) {
	admin := newApp(t)
	ctx := context.Background()
	ep, err := admin.store.CreateWebhookEndpoint(ctx, models.WebhookEndpointInput{URL: "https://hooks.example.com/x", Events: []string{"incident.created"}, Format: "standard"}, false)
	if err != nil {
		t.Fatal(err)
	}
	admin.createIncident(seed000Form())
	claimed, err := admin.store.ClaimWebhookDeliveries(ctx, "w", time.Now(), models.Lease, 10)
	if err != nil || len(claimed) != 1 {
		t.Fatalf("claim: %d %v", len(claimed), err)
	}
	if err := admin.store.RecordWebhookAttempt(ctx, &claimed[0], "w", models.AttemptResult{StatusCode: 410, ResponseHead: "gone"}, claimed[0].CreatedAt); err != nil {
		t.Fatal(err)
	}
	admin.createIncident(seed000Form())
	later := time.Now().Add(models.SwitchOffAfter + models.Lease)
	claimed, err = admin.store.ClaimWebhookDeliveries(ctx, "w", later, models.Lease, 10)
	if err != nil || len(claimed) == 0 {
		t.Fatalf("claim later: %d %v", len(claimed), err)
	}
	if err := admin.store.RecordWebhookAttempt(ctx, &claimed[0], "w", models.AttemptResult{StatusCode: 410, ResponseHead: "gone"}, later); err != nil {
		t.Fatal(err)
	}
	check(t, "list", admin.get("/admin/webhooks"), http.StatusOK, []string{`class="alert warning"`, "is switched off", "every delivery failed for 3 days", "HTTP 410", "Switched off"}, nil)
	check(t, "endpoint", admin.get("/admin/webhooks/"+itoa(ep.ID)), http.StatusOK, []string{"turn the endpoint on again", "HTTP 410", "gone"}, nil)
}
