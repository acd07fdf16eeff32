package handlers

import (
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/models/cstate"
	"hindsight/models/importer"
	"hindsight/models/statuspage"
	"hindsight/templates"
)

// ImportBodyLimit is the largest upload the import page takes: GitHub's whole history is 3 MB.
const ImportBodyLimit = 20 << 20

// importRowLimit is how many records the result lists; the summary counts them all.
const importRowLimit = 300

// ImportUpload imports uploaded Statuspage JSON or cState Markdown files, as "hindsight import"
// does: every record is checked first, a bad one is named by file, record and field and stops
// the whole import unless invalid records are to be skipped, and a dry run writes nothing.
func (h *Handlers) ImportUpload(c echo.Context) error {
	view := templates.ImportView{Page: templates.Page{Title: "Import incidents", Section: "users"}}
	fail := func(status int, message string) error {
		view.Error = message
		return render(c, status, templates.ImportPage(view))
	}
	form, err := c.MultipartForm()
	if err != nil {
		var tooLarge *http.MaxBytesError
		var httpErr *echo.HTTPError
		switch {
		case errors.As(err, &httpErr):
			return httpErr
		case errors.As(err, &tooLarge):
			return fail(http.StatusRequestEntityTooLarge, "The files are larger than 20 MiB in all; import them in parts.")
		}
		view.Format, view.DryRun = "statuspage", true
		return fail(http.StatusBadRequest, "The upload could not be read; choose the files again.")
	}
	value := func(name string) string {
		if v := form.Value[name]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	flag := func(name string) bool { v := value(name); return v == "true" || v == "on" || v == "1" }
	view.Format, view.DryRun, view.SkipInvalid, view.IncludeMaintenance = value("format"), flag("dry_run"), flag("skip_invalid"), flag("include_maintenance")
	files := form.File["files"]
	if len(files) == 0 {
		return fail(http.StatusUnprocessableEntity, "Choose a file to import.")
	}

	var records []importer.Record
	var names []string
	for _, fh := range files {
		name := filepath.Base(fh.Filename)
		names = append(names, name)
		data, err := readUpload(fh)
		if err != nil {
			return fail(http.StatusBadRequest, fmt.Sprintf("%s could not be read; choose it again.", name))
		}
		switch view.Format {
		case "statuspage":
			recs, err := statuspage.Parse(data, name, statuspage.ParseOptions{IncludeMaintenance: view.IncludeMaintenance})
			if err != nil {
				return fail(http.StatusUnprocessableEntity, fmt.Sprintf("%s is not Statuspage v2 incident JSON, so nothing was imported: %v", name, err))
			}
			records = append(records, recs...)
		case "cstate":
			if ext := strings.ToLower(filepath.Ext(name)); ext != ".md" && ext != ".markdown" {
				return fail(http.StatusUnprocessableEntity, fmt.Sprintf("%s is not a Markdown file; cState incidents are .md files, so nothing was imported.", name))
			}
			records = append(records, cstate.Parse(data, name, cstate.ParseOptions{IncludeMaintenance: view.IncludeMaintenance}))
		default:
			return fail(http.StatusUnprocessableEntity, "Choose a format: Statuspage v2 JSON or cState Markdown.")
		}
	}

	ctx := c.Request().Context()
	if user := CurrentUser(c); user != nil {
		// History says who imported what.
		ctx = models.WithActor(ctx, models.Actor{UserID: user.ID, Label: user.Label() + " (import of " + strings.Join(names, ", ") + ")"})
	}
	summary, runErr := importer.Run(ctx, h.Store, records, importer.Options{DryRun: view.DryRun, SkipInvalid: view.SkipInvalid})
	invalid := importer.IsInvalid(runErr)
	if runErr != nil && !invalid {
		if errors.Is(runErr, models.ErrConflict) {
			return fail(http.StatusConflict, "An incident was changed while the import ran, so nothing was written. Import again.")
		}
		return runErr
	}
	view.Result = importResult(summary, names, invalid)
	status := http.StatusOK
	if invalid {
		status = http.StatusUnprocessableEntity
	}
	return render(c, status, templates.ImportPage(view))
}

func readUpload(fh *multipart.FileHeader) ([]byte, error) {
	f, err := fh.Open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, ImportBodyLimit))
}

// importResult turns the importer's summary into what the page shows.
func importResult(s importer.Summary, files []string, invalid bool) *templates.ImportResult {
	r := &templates.ImportResult{
		Files: files, DryRun: s.DryRun, Invalid: invalid,
		Written: !s.DryRun && !invalid && s.Created+s.Updated+s.Maintenances > 0,
		Counts:  [6]int{s.Created, s.Updated, s.Unchanged, s.Skipped, s.Bad, s.Maintenances},
	}
	var text strings.Builder
	_ = s.Write(&text, false)
	r.Text = text.String()
	for _, res := range s.Invalid() {
		for _, fe := range res.Errors {
			if len(r.Problems) == 50 {
				break
			}
			r.Problems = append(r.Problems, fmt.Sprintf("%s: %s: %s", res.Record, fe.Field, fe.Message))
		}
	}
	for _, res := range s.Results {
		if res.Action == importer.Unchanged || res.Action == "" { // "": valid, but not imported
			continue
		}
		if len(r.Rows) == importRowLimit {
			r.Omitted++
			continue
		}
		action := string(res.Action)
		if s.DryRun && (res.Action == importer.Create || res.Action == importer.Update) {
			action = "would " + action
		}
		var detail []string
		switch res.Action {
		case importer.Update:
			detail = append(detail, "changes "+strings.Join(res.Changes, ", "))
		case importer.Skip, importer.Maintain:
			detail = append(detail, res.Reason)
		case importer.Invalid:
			for _, fe := range res.Errors {
				detail = append(detail, fe.Field+": "+fe.Message)
			}
		}
		detail = append(detail, res.Warnings...)
		r.Rows = append(r.Rows, templates.ImportRow{Record: res.Record, Action: action, IncidentID: res.IncidentID, Detail: strings.Join(detail, "; ")})
	}
	return r
}
