package web_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"os"
	"strings"
	"testing"
)

const githubExcerpt = "../testdata/statuspage/github_incidents_excerpt.json"

// upload posts files to the import page as a browser does, with the form's fields.
func (a *app) upload(fields map[string]string, files map[string][]byte) response {
	a.t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	if a.csrf != "" {
		_ = w.WriteField("csrf_token", a.csrf)
	}
	for k, v := range fields {
		_ = w.WriteField(k, v)
	}
	for name, data := range files {
		part, err := w.CreateFormFile("files", name)
		if err != nil {
			a.t.Fatal(err)
		}
		_, _ = part.Write(data)
	}
	_ = w.Close()
	return a.do(http.MethodPost, "/admin/import", w.FormDataContentType(), &body)
}

func (a *app) incidentCount() int {
	a.t.Helper()
	var list struct {
		Total int `json:"total"`
	}
	r := a.get("/api/v1/incidents?limit=1")
	if r.status != http.StatusOK {
		a.t.Fatalf("count incidents: %d", r.status)
	}
	if err := json.Unmarshal([]byte(r.body), &list); err != nil {
		a.t.Fatal(err)
	}
	return list.Total
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestImportUpload(t *testing.T) {
	a := newApp(t)
	excerpt := readFile(t, githubExcerpt)
	var doc struct {
		Incidents []json.RawMessage `json:"incidents"`
	}
	if err := json.Unmarshal(excerpt, &doc); err != nil {
		t.Fatal(err)
	}
	n := len(doc.Incidents)

	check(t, "form", a.get("/admin/import"), http.StatusOK, []string{`enctype="multipart/form-data"`, `name="dry_run" value="true" checked`}, nil)

	// A dry run says what would change and writes nothing.
	r := a.upload(map[string]string{"format": "statuspage", "dry_run": "true"}, map[string][]byte{"github.json": excerpt})
	check(t, "dry run", r, http.StatusOK, []string{"Dry run of github.json: nothing was written", "Would create", "would create", fmt.Sprintf("%d record(s): would create %d", n, n)}, nil)
	if got := a.incidentCount(); got != 0 {
		t.Fatalf("a dry run wrote %d incidents", got)
	}

	r = a.upload(map[string]string{"format": "statuspage"}, map[string][]byte{"github.json": excerpt})
	check(t, "import", r, http.StatusOK, []string{"Imported github.json", fmt.Sprintf("created %d", n)}, nil)
	if got := a.incidentCount(); got != n {
		t.Fatalf("imported %d incidents, want %d", got, n)
	}
	check(t, "imported incidents are public", a.anonymous().get("/status/api/v2/incidents.json"), http.StatusOK, []string{`"incident_updates"`}, nil)
	check(t, "again: nothing changes", a.upload(map[string]string{"format": "statuspage"}, map[string][]byte{"github.json": excerpt}), http.StatusOK,
		[]string{fmt.Sprintf("unchanged %d", n)}, nil)
	check(t, "history says who imported what", a.get("/incidents/1/history"), http.StatusOK, []string{"(import of github.json)"}, nil)

	// cState: several Markdown files at once.
	r = a.upload(map[string]string{"format": "cstate", "dry_run": "true"}, map[string][]byte{
		"2024-02-07-ci-down.md":        readFile(t, "../testdata/cstate/2024-02-07-ci-down.md"),
		"2023-07-06-jira-outage.md":    readFile(t, "../testdata/cstate/2023-07-06-jira-outage.md"),
		"2023-05-16-ci-maintenance.md": readFile(t, "../testdata/cstate/2023-05-16-ci-maintenance.md"),
	})
	check(t, "cstate dry run", r, http.StatusOK, []string{"would create 2", "would skip 0", "planned maintenance kept 1"}, nil)
	check(t, "a JSON file as cState", a.upload(map[string]string{"format": "cstate"}, map[string][]byte{"github.json": excerpt}), http.StatusUnprocessableEntity,
		[]string{"github.json is not a Markdown file"}, nil)
	check(t, "not JSON", a.upload(map[string]string{"format": "statuspage"}, map[string][]byte{"notes.json": []byte("hello")}), http.StatusUnprocessableEntity,
		[]string{"notes.json is not Statuspage v2 incident JSON, so nothing was imported"}, nil)
	check(t, "no file", a.upload(map[string]string{"format": "statuspage"}, nil), http.StatusUnprocessableEntity, []string{"Choose a file to import."}, nil)
	check(t, "viewer", a.as("viewer").get("/admin/import"), http.StatusForbidden, nil, nil)
}

// TestImportUploadBadRecord proves that one bad record is named by file, record and field, and
// that nothing of the run is written unless invalid records are to be skipped.
func TestImportUploadBadRecord(t *testing.T) {
	a := newApp(t)
	bad := []byte(`{"page":{"id":"p","name":"Example","time_zone":"Etc/UTC"},"incidents":[
		{"id":"good1","name":"Queue delays","status":"resolved","impact":"minor","created_at":"2024-01-02T10:00:00Z","resolved_at":"2024-01-02T11:00:00Z",
		 "incident_updates":[{"id":"u1","status":"resolved","body":"Fixed.","created_at":"2024-01-02T11:00:00Z"}]},
		{"id":"bad2","name":"Broken record","status":"resolved","impact":"apocalyptic","created_at":"2024-01-03T10:00:00Z"}]}`)
	r := a.upload(map[string]string{"format": "statuspage"}, map[string][]byte{"bad.json": bad})
	check(t, "bad record", r, http.StatusUnprocessableEntity, []string{"1 invalid record, so nothing was written", "bad.json, record 2 (id bad2): impact:"}, []string{"Imported bad.json"})
	if got := a.incidentCount(); got != 0 {
		t.Fatalf("a run with a bad record wrote %d incidents", got)
	}
	r = a.upload(map[string]string{"format": "statuspage", "skip_invalid": "true"}, map[string][]byte{"bad.json": bad})
	check(t, "skip invalid", r, http.StatusOK, []string{"Imported bad.json", "created 1", "invalid 1 (not imported)"}, nil)
	if got := a.incidentCount(); got != 1 {
		t.Fatalf("skip-invalid wrote %d incidents, want 1", got)
	}
}

// TestImportUploadSize proves the import page takes files over the 1 MiB every other route is
// held to, and still has a limit of its own.
func TestImportUploadSize(t *testing.T) {
	a := newApp(t)
	var doc struct {
		Page      json.RawMessage  `json:"page"`
		Incidents []map[string]any `json:"incidents"`
	}
	if err := json.Unmarshal(readFile(t, githubExcerpt), &doc); err != nil {
		t.Fatal(err)
	}
	var big struct {
		Page      json.RawMessage  `json:"page"`
		Incidents []map[string]any `json:"incidents"`
	}
	big.Page = doc.Page
	for copyN := 0; len(big.Incidents) < 15*len(doc.Incidents); copyN++ {
		for _, inc := range doc.Incidents {
			clone := map[string]any{}
			for k, v := range inc {
				clone[k] = v
			}
			clone["id"] = fmt.Sprintf("%s-%d", inc["id"], copyN)
			big.Incidents = append(big.Incidents, clone)
		}
	}
	data, err := json.Marshal(big)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) <= 1<<20 {
		t.Fatalf("the test file is only %d bytes", len(data))
	}
	check(t, "over 1 MiB", a.upload(map[string]string{"format": "statuspage", "dry_run": "true"}, map[string][]byte{"big.json": data}), http.StatusOK,
		[]string{fmt.Sprintf("would create %d", len(big.Incidents))}, nil)
	huge := bytes.Repeat([]byte(" "), 21<<20)
	check(t, "over 20 MiB", a.upload(map[string]string{"format": "statuspage"}, map[string][]byte{"huge.json": huge}), http.StatusRequestEntityTooLarge,
		[]string{"larger than 20 MiB"}, nil)
	// Everything else keeps the 1 MiB limit.
	r := a.post("/admin/settings", map[string][]string{"name": {strings.Repeat("x", 2<<20)}, "time_zone": {"UTC"}})
	check(t, "settings over 1 MiB", r, http.StatusRequestEntityTooLarge, []string{"larger than 1 MiB"}, nil)
}

func TestIncidentExports(t *testing.T) {
	a := newApp(t)
	a.loadDemo()
	md := a.get("/incidents/1/export.md")
	check(t, "markdown", md, http.StatusOK, []string{"# Canada: slow responses", "## Customer Impact", "## Root Cause", "## Trigger", "## Lessons", "## Follow-up"}, nil)
	if cd := md.header.Get("Content-Disposition"); !strings.Contains(cd, `filename="incident-1-canada-slow-responses`) || !strings.HasPrefix(md.header.Get("Content-Type"), "text/markdown") {
		t.Errorf("markdown headers: %v", md.header)
	}
	var native struct {
		ID       int64  `json:"id"`
		Title    string `json:"title"`
		Timeline []any  `json:"timeline"`
		Metrics  struct {
			TTD *int64 `json:"time_to_detect_seconds"`
		} `json:"metrics"`
	}
	js := a.get("/incidents/1/export.json")
	js.decode(t, &native)
	if native.ID != 1 || native.Metrics.TTD == nil || *native.Metrics.TTD != 262440 || len(native.Timeline) == 0 {
		t.Errorf("native export = %+v", native)
	}
	sp := a.get("/incidents/1/export.statuspage.json")
	check(t, "statuspage", sp, http.StatusOK, []string{`"incident_updates"`, `"impact": "major"`, `"postmortem_body"`}, nil)
	check(t, "print link", a.get("/incidents/1"), http.StatusOK, []string{"/incidents/1/export.md", "/incidents/1/export.statuspage.json", "/incidents/1/postmortem"}, nil)
	check(t, "anonymous", a.anonymous().get("/incidents/1/export.md"), http.StatusSeeOther, nil, nil)
}
