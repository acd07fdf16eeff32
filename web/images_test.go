package web_test

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"hindsight/models"
	"hindsight/web"
)

// uploadImage posts a file to an incident's image route, as images.js does (JSON answer) or as
// the file input's own form does without JavaScript.
func (a *app) uploadImage(path, name string, data []byte, asJSON bool, csrf string) response {
	a.t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	_ = w.WriteField("csrf_token", csrf)
	fw, _ := w.CreateFormFile("image", name)
	_, _ = fw.Write(data)
	_ = w.Close()
	req := map[string]string{"Content-Type": w.FormDataContentType()}
	if asJSON {
		req["Accept"] = "application/json"
	}
	return a.doRaw(http.MethodPost, path+"/images", &body, req)
}

// doRaw sends a body with the given headers and the client's cookies, and no CSRF header: the
// form field carries the token, or not.
func (a *app) doRaw(method, path string, body *bytes.Buffer, headers map[string]string) response {
	a.t.Helper()
	req := httptest.NewRequest(method, path, body)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	for _, c := range a.jar.Cookies(siteURL) {
		req.AddCookie(c)
	}
	rec := httptest.NewRecorder()
	a.e.ServeHTTP(rec, req)
	return response{rec.Code, rec.Body.String(), rec.Header()}
}

var imagePath = regexp.MustCompile(`/images/(\d+)`)

// TestImagesUploadServeAndStayPrivate: an image pasted into a text is stored and its Markdown
// comes back; without JavaScript the upload opens a page with the Markdown; the bytes decide the
// type (SVG and HTML named .png are refused with a message, nothing saved); the app serves it to
// those signed in with a safe type, nosniff, inline and private caching; the status page serves
// it only once a public update refers to it, at /status/images and on the status host; viewers
// cannot upload and a post without the CSRF token is refused.
func TestImagesUploadServeAndStayPrivate(t *testing.T) {
	admin := newServerWith(t, web.Deps{StatusHost: "status.example.com", BaseURL: "https://hindsight.example.com"}).as(models.RoleAdmin)
	path := admin.createIncident(with(seed000Form(), "public", "true"))
	page := admin.get(path)
	check(t, "incident page offers images", page, http.StatusOK, []string{`id="image-upload"`, `enctype="multipart/form-data"`, `form="image-upload"`, `/static/images.js`}, nil)
	check(t, "edit form offers images beside each editor", admin.get(path+"/edit"), http.StatusOK, []string{`class="image-attach" data-for="customer_impact"`, `id="image-upload"`}, nil)
	csrf := admin.csrf
	data := pngLogo(t, 8)

	r := admin.uploadImage(path, "p99 latency.png", data, true, csrf)
	if r.status != http.StatusCreated {
		t.Fatalf("upload: status %d: %s", r.status, r.body)
	}
	var answer struct {
		ID            int64
		URL, Markdown string
	}
	if err := json.Unmarshal([]byte(r.body), &answer); err != nil {
		t.Fatal(err)
	}
	if answer.Markdown != "![p99 latency]("+answer.URL+")" || !imagePath.MatchString(answer.URL) {
		t.Fatalf("answer = %+v", answer)
	}

	noJS := admin.uploadImage(path, "Screenshot 2026-03-12.png", data, false, csrf)
	check(t, "without JavaScript", noJS, http.StatusCreated, []string{"Image uploaded", `value="![Describe the image](` + answer.URL + `)"`}, nil)

	for name, bad := range map[string][]byte{
		"evil.png": []byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`),
		"page.png": []byte("<!doctype html><script>alert(1)</script>"),
	} {
		check(t, name, admin.uploadImage(path, name, bad, true, csrf), http.StatusUnprocessableEntity, []string{models.ImageMessage}, nil)
		check(t, name+" without JavaScript", admin.uploadImage(path, name, bad, false, csrf), http.StatusUnprocessableEntity, []string{models.ImageMessage}, nil)
	}
	check(t, "no file", admin.uploadImage(path, "", nil, true, csrf), http.StatusUnprocessableEntity, []string{"Choose an image file"}, nil)
	big := append(append([]byte{}, data...), make([]byte, models.MaxImageBytes)...)
	check(t, "over 2 MiB", admin.uploadImage(path, "big.png", big, true, csrf), http.StatusUnprocessableEntity, []string{models.ImageMessage}, nil)
	huge := append(append([]byte{}, data...), make([]byte, 4<<20)...)
	if r := admin.uploadImage(path, "huge.png", huge, true, csrf); r.status != http.StatusRequestEntityTooLarge {
		t.Errorf("over the body limit: status %d", r.status)
	}
	check(t, "no incident", admin.uploadImage("/incidents/999999", "a.png", data, true, csrf), http.StatusNotFound, nil, nil)
	check(t, "no CSRF token", admin.uploadImage(path, "a.png", data, true, ""), http.StatusForbidden, nil, nil)
	viewer := admin.as(models.RoleViewer)
	viewer.get(path)
	check(t, "a viewer", viewer.uploadImage(path, "a.png", data, true, viewer.csrf), http.StatusForbidden, nil, nil)
	if n := countImages(t, admin); n != 1 {
		t.Errorf("%d images stored, want 1 (the same image twice is one; refusals save nothing)", n)
	}

	served := admin.get(answer.URL)
	if served.status != http.StatusOK || served.body != string(data) {
		t.Fatalf("served: status %d", served.status)
	}
	for header, want := range map[string]string{
		"Content-Type": "image/png", "X-Content-Type-Options": "nosniff", "Content-Disposition": `inline; filename="image-` + strings.TrimPrefix(answer.URL, "/images/") + `.png"`,
		"Cache-Control": "private, max-age=3600",
	} {
		if got := served.header.Get(header); got != want {
			t.Errorf("%s = %q, want %q", header, got, want)
		}
	}
	if !strings.Contains(served.header.Get("Content-Security-Policy"), "sandbox") {
		t.Errorf("CSP = %q", served.header.Get("Content-Security-Policy"))
	}
	check(t, "viewer sees it", viewer.get(answer.URL), http.StatusOK, nil, nil)
	visitor := admin.anonymous()
	if r := visitor.get(answer.URL); r.status == http.StatusOK {
		t.Errorf("signed out, the app's image route answered %d", r.status)
	}
	publicURL := "/status" + answer.URL
	check(t, "not public while no public text refers to it", visitor.get(publicURL), http.StatusNotFound, nil, []string{string(data[:8])})
	check(t, "nor on the status host", visitor.onHost("status.example.com", http.MethodGet, answer.URL), http.StatusNotFound, nil, nil)

	// An internal note showing it: inline on the incident page, still private.
	admin.post(path+"/events", url.Values{"at": {"2026-03-12 16:50"}, "time_zone": {"UTC"}, "kind": {"note"}, "body": {answer.Markdown}})
	check(t, "shown inline", admin.get(path), http.StatusOK, []string{`<img src="` + answer.URL + `" alt="p99 latency"`}, nil)
	check(t, "an internal note keeps it private", visitor.get(publicURL), http.StatusNotFound, nil, nil)

	admin.get(path)
	r = admin.post(path+"/events", url.Values{"at": {"2026-03-12 17:00"}, "time_zone": {"UTC"}, "kind": {"status_update"}, "status": {"identified"}, "body": {"The graph: " + answer.Markdown}, "public": {"true"}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("public update: %d %.300s", r.status, r.body)
	}
	pub := visitor.get(publicURL)
	if pub.status != http.StatusOK || pub.body != string(data) || pub.header.Get("X-Content-Type-Options") != "nosniff" ||
		pub.header.Get("Cache-Control") != "private, max-age=60" || !strings.HasPrefix(pub.header.Get("Content-Disposition"), "inline") {
		t.Errorf("public image: status %d, headers %v", pub.status, pub.header)
	}
	id := strings.TrimPrefix(path, "/incidents/")
	check(t, "the status page points at its own route", visitor.get("/status/incidents/"+id), http.StatusOK, []string{`src="` + publicURL + `"`}, []string{`src="` + answer.URL + `"`})
	check(t, "the status host serves it at its root", visitor.onHost("status.example.com", http.MethodGet, answer.URL), http.StatusOK, nil, nil)
	check(t, "and its page points there", visitor.onHost("status.example.com", http.MethodGet, "/incidents/"+id), http.StatusOK, []string{`src="` + answer.URL + `"`}, nil)
}

func countImages(t *testing.T, a *app) int {
	t.Helper()
	db, err := a.store.SQLDB()
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM incident_images").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestDayPrecisionShownAsApproximate: a milestone typed as a date alone (seed 004's trigger, "the
// 1st of April") makes its figures approximate on the incident page, the list, the Markdown
// export and the API.
func TestDayPrecisionShownAsApproximate(t *testing.T) {
	a := newApp(t)
	path := a.createIncident(with(seed000Form(), "title", "Deploy bit later", "triggered_at", "2026-04-01",
		"started_at", "2026-04-05 10:30", "detected_at", "2026-04-05 10:40", "mitigated_at", "2026-04-05 11:00", "resolved_at", "2026-04-06"))
	check(t, "incident page", a.get(path), http.StatusOK, []string{"about 4 days", "Approximate: a milestone is known only to the day.", "10 min"}, nil)
	check(t, "list", a.get("/incidents"), http.StatusOK, []string{`data-label="TTR">about 1 day</td>`, `data-label="TTD">10 min</td>`}, nil)
	check(t, "markdown", a.get(path+"/export.md"), http.StatusOK, []string{"Impact began about 4 days after the trigger."}, nil)
	var api struct {
		Metrics struct {
			Approximate []string `json:"approximate"`
		} `json:"metrics"`
	}
	a.get("/api/v1/incidents/"+strings.TrimPrefix(path, "/incidents/")).decode(t, &api)
	if got := strings.Join(api.Metrics.Approximate, ","); got != "time_to_resolve,latent" {
		t.Errorf("API approximate = %q", got)
	}
}
