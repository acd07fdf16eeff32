package web_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"hindsight/models"
	"hindsight/models/storetest"
	"hindsight/web"
)

// newServerWith starts a server with the deps given (store and log filled in) and returns an
// anonymous client of it.
func newServerWith(t *testing.T, deps web.Deps) *app {
	t.Helper()
	deps.Store = storetest.SQLite(t)
	deps.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	jar, _ := cookiejar.New(nil)
	return &app{t: t, e: web.New(deps), store: deps.Store, jar: jar}
}

// onHost sends a request for another host, with the client's cookies.
func (a *app) onHost(host, method, path string) response {
	a.t.Helper()
	req := httptest.NewRequest(method, path, nil)
	req.Host = host
	for _, c := range a.jar.Cookies(siteURL) {
		req.AddCookie(c)
	}
	rec := httptest.NewRecorder()
	a.e.ServeHTTP(rec, req)
	return response{rec.Code, rec.Body.String(), rec.Header()}
}

// TestStatusHostServesOnlyTheStatusPage: on the status host the status page, its history,
// incidents, feed and Statuspage API answer at the root, and nothing of the app does, for a
// visitor or a signed-in admin; the app's host keeps its own root.
func TestStatusHostServesOnlyTheStatusPage(t *testing.T) {
	admin := newServerWith(t, web.Deps{StatusHost: "status.example.com", BaseURL: "https://hindsight.example.com"}).as(models.RoleAdmin)
	path := admin.createIncident(with(seed000Form(), "public", "true", "title", "Public and over"))
	admin.post(path+"/events", url.Values{"at": {"2026-03-12T17:00"}, "time_zone": {"UTC"}, "kind": {"status_update"}, "status": {"resolved"}, "body": {"All better."}, "public": {"true"}})
	private := admin.createIncident(with(seed000Form(), "title", "A private incident"))
	id := strings.TrimPrefix(path, "/incidents/")
	visitor := admin.anonymous()

	const host = "status.example.com"
	for _, client := range []struct {
		name string
		a    *app
	}{{"visitor", visitor}, {"signed-in admin", admin}} {
		a := client.a
		home := a.onHost(host, http.MethodGet, "/")
		check(t, client.name+": status host root", home, http.StatusOK,
			[]string{`class="status-site"`, "Public and over", `href="/incidents/` + id + `"`, `href="/history"`, `href="/feed.atom"`, `href="/api/v2/summary.json"`},
			[]string{"A private incident", "/status/", "Sign out", "/incidents/new"})
		check(t, client.name+": history", a.onHost(host, http.MethodGet, "/history"), http.StatusOK, []string{"Incident history", "Public and over"}, []string{"A private incident"})
		check(t, client.name+": incident", a.onHost(host, http.MethodGet, "/incidents/"+id), http.StatusOK, []string{"Public and over", "All better."}, []string{"Sign out", "Edit"})
		check(t, client.name+": feed", a.onHost(host, http.MethodGet, "/feed.atom"), http.StatusOK, []string{"https://status.example.com/incidents/" + id}, []string{"A private incident"})
		check(t, client.name+": summary.json", a.onHost(host, http.MethodGet, "/api/v2/summary.json"), http.StatusOK, []string{`"url":"https://status.example.com"`}, nil)
		check(t, client.name+": incidents.json", a.onHost(host, http.MethodGet, "/api/v2/incidents.json"), http.StatusOK, []string{"Public and over", `"shortlink":"https://status.example.com/incidents/` + id + `"`}, []string{"A private incident"})
		check(t, client.name+": stylesheet", a.onHost(host, http.MethodGet, "/static/style.css"), http.StatusOK, nil, nil)
		check(t, client.name+": with a port and in capitals", a.onHost("STATUS.example.com:8443", http.MethodGet, "/"), http.StatusOK, []string{"Public and over"}, nil)

		for _, p := range []string{"/login", "/setup", "/logout", "/incidents", "/incidents/new", "/incidents/" + id + "/edit", private, "/admin/settings",
			"/account", "/follow-ups", "/insights", "/search?q=x", "/metrics", "/healthz", "/status", "/status/history", "/status/incidents/" + id,
			"/static/htmx.min.js", "/static/", "/incidents/" + id + "/export.json", "/feeds/x/calendar.ics", "/history/../login"} {
			r := a.onHost(host, http.MethodGet, p)
			check(t, client.name+": "+p+" on the status host", r, http.StatusNotFound, []string{`class="status-site"`}, []string{"Sign in", "Sign out", "A private incident"})
		}
		for _, p := range []string{"/api/v1/incidents", "/api/v1/incidents/" + id, "/api/v2/nothing.json"} {
			r := a.onHost(host, http.MethodGet, p)
			check(t, client.name+": "+p+" on the status host", r, http.StatusNotFound, []string{`"error"`}, []string{"Public and over"})
		}
		for _, p := range []string{"/login", "/incidents", "/api/v1/incidents", "/"} {
			if r := a.onHost(host, http.MethodPost, p); r.status != http.StatusNotFound && r.status != http.StatusForbidden {
				t.Errorf("%s: POST %s on the status host: %d", client.name, p, r.status)
			} else if strings.Contains(r.body, "Sign in") {
				t.Errorf("%s: POST %s on the status host showed the app", client.name, p)
			}
		}
	}
	// The app's host: its root is the app's, not the status page; /status still serves it.
	if r := admin.get("/"); strings.Contains(r.body, `class="status-site"`) || (r.status != http.StatusOK && r.status != http.StatusFound && r.status != http.StatusSeeOther) {
		t.Errorf("the app's root for an admin: %d %.300s", r.status, r.body)
	}
	if r := visitor.get("/"); strings.Contains(r.body, `class="status-site"`) {
		t.Errorf("the app's root served the status page to a visitor: %d", r.status)
	}
	check(t, "app /status", visitor.get("/status"), http.StatusOK, []string{"Public and over", `href="/status/incidents/` + id + `"`}, nil)
	check(t, "app login", visitor.get("/login"), http.StatusOK, []string{"Sign in"}, nil)
}

// TestStatusHostFromTheSettingsPage: a status host saved on the settings page wins over the
// flag at once, and a bad one is refused beside the field.
func TestStatusHostFromTheSettingsPage(t *testing.T) {
	admin := newServerWith(t, web.Deps{StatusHost: "status.example.com"}).as(models.RoleAdmin)
	admin.get("/admin/settings")
	for _, bad := range []string{"https://status.example.com", "status.example.com/path", "status example", "status.example.com:80"} {
		r := admin.post("/admin/settings", url.Values{"name": {"Example"}, "time_zone": {"UTC"}, "status_host": {bad}})
		check(t, "bad host "+bad, r, http.StatusUnprocessableEntity, []string{models.StatusHostMessage}, nil)
	}
	r := admin.post("/admin/settings", url.Values{"name": {"Example"}, "time_zone": {"UTC"}, "base_url": {"https://hindsight.example.com"}, "status_host": {"hindsight.example.com"}})
	check(t, "the app's own host", r, http.StatusUnprocessableEntity, []string{"Must differ from the base URL"}, nil)

	r = admin.post("/admin/settings", url.Values{"name": {"Example status"}, "time_zone": {"Europe/London"}, "status_host": {"Uptime.Example.org"}, "support_url": {"https://example.org/help"}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("save: %d %.500s", r.status, r.body)
	}
	visitor := admin.anonymous()
	check(t, "new status host", visitor.onHost("uptime.example.org", http.MethodGet, "/"), http.StatusOK,
		[]string{"Example status", `href="https://example.org/help"`, "Get help", "Europe/London"}, nil)
	check(t, "the flag's host is the app's again", visitor.onHost("status.example.com", http.MethodGet, "/login"), http.StatusOK, []string{"Sign in"}, nil)
	check(t, "the new host serves no app", visitor.onHost("uptime.example.org", http.MethodGet, "/login"), http.StatusNotFound, nil, []string{"Sign in"})
	check(t, "settings page shows it", admin.get("/admin/settings"), http.StatusOK, []string{`value="uptime.example.org"`, `value="https://example.org/help"`}, nil)

	r = admin.post("/admin/settings", url.Values{"name": {"Example status"}, "time_zone": {"UTC"}, "support_url": {"javascript:alert(1)"}})
	check(t, "a script link", r, http.StatusUnprocessableEntity, []string{"Must be an http or https link."}, nil)
}

// uploadLogo posts a file to the settings page's logo form.
func (a *app) uploadLogo(name string, data []byte) response {
	a.t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	_ = w.WriteField("csrf_token", a.csrf)
	fw, _ := w.CreateFormFile("logo", name)
	_, _ = fw.Write(data)
	_ = w.Close()
	return a.do(http.MethodPost, "/admin/settings/logo", w.FormDataContentType(), &body)
}

// pngLogo draws a small logo: a blue square with a white bar across it.
func pngLogo(t *testing.T, side int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, side, side))
	for x := 0; x < side; x++ {
		for y := 0; y < side; y++ {
			c := color.RGBA{R: 37, G: 99, B: 235, A: 255}
			if y > side*2/5 && y < side*3/5 && x > side/5 && x < side*4/5 {
				c = color.RGBA{R: 255, G: 255, B: 255, A: 255}
			}
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestStatusLogo: an admin uploads a logo, which the status page shows and serves as the type
// its bytes are; anything but a PNG, JPEG or GIF within the limits is refused beside the field,
// whatever its name claims; only an admin may upload.
func TestStatusLogo(t *testing.T) {
	admin := newServerWith(t, web.Deps{StatusHost: "status.example.com"}).as(models.RoleAdmin)
	admin.get("/admin/settings")
	for _, c := range []struct{ name, file, body string }{
		{"svg with script", "logo.png", `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`},
		{"html", "logo.gif", "<html><script>alert(1)</script></html>"},
		{"empty", "logo.png", ""},
	} {
		r := admin.uploadLogo(c.file, []byte(c.body))
		check(t, c.name, r, http.StatusUnprocessableEntity, nil, []string{"Saved."})
		if !strings.Contains(r.body, models.LogoMessage) && !strings.Contains(r.body, "Choose an image file") {
			t.Errorf("%s: no message beside the field: %.600s", c.name, r.body)
		}
	}
	big := append(pngLogo(t, 8), make([]byte, models.MaxLogoBytes)...)
	check(t, "too large", admin.uploadLogo("logo.png", big), http.StatusUnprocessableEntity, []string{models.LogoMessage}, nil)
	check(t, "no logo yet", admin.anonymous().get("/status/logo"), http.StatusNotFound, nil, nil)

	if r := admin.anonymous().as(models.RoleResponder).uploadLogo("logo.png", pngLogo(t, 8)); r.status != http.StatusForbidden {
		t.Errorf("a responder uploaded a logo: %d", r.status)
	}
	logo := pngLogo(t, 64)
	if r := admin.uploadLogo("company.svg", logo); r.status != http.StatusSeeOther {
		t.Fatalf("upload: %d %.500s", r.status, r.body)
	}
	visitor := admin.anonymous()
	home := visitor.onHost("status.example.com", http.MethodGet, "/")
	check(t, "status page shows the logo", home, http.StatusOK, []string{`class="status-logo" src="/logo?v=`}, nil)
	served := visitor.onHost("status.example.com", http.MethodGet, "/logo")
	if served.status != http.StatusOK || served.body != string(logo) {
		t.Fatalf("logo served: %d, %d bytes", served.status, len(served.body))
	}
	if ct := served.header.Get("Content-Type"); ct != "image/png" {
		t.Errorf("logo served as %q, want image/png from its bytes (its name said svg)", ct)
	}
	if served.header.Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(served.header.Get("Content-Security-Policy"), "sandbox") {
		t.Errorf("logo headers: %v", served.header)
	}
	check(t, "app host status page", visitor.get("/status"), http.StatusOK, []string{`src="/status/logo?v=`}, nil)
	admin.get("/admin/settings")
	if r := admin.post("/admin/settings/logo/remove", nil); r.status != http.StatusSeeOther {
		t.Fatalf("remove: %d", r.status)
	}
	check(t, "logo gone", visitor.get("/status"), http.StatusOK, nil, []string{"status-logo"})
	check(t, "logo gone", visitor.get("/status/logo"), http.StatusNotFound, nil, nil)
}

// brandStatusPage gives the status page a name, a support link and a logo, as an admin would.
func brandStatusPage(t *testing.T, store *models.Store) {
	t.Helper()
	ctx := context.Background()
	if err := store.SaveStatusSettings(ctx, models.StatusSettings{Name: "Example Inc. status", TimeZone: "Europe/London", SupportURL: "https://example.com/support"}); err != nil {
		t.Fatal(err)
	}
	if err := store.SaveStatusLogo(ctx, pngLogo(t, 64)); err != nil {
		t.Fatal(err)
	}
}
