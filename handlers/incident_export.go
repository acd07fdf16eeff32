package handlers

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/models/mdexport"
)

// The exports of one incident, for the people who may read it: the whole postmortem as Markdown
// in the seeds' shape, the JSON API's representation, and Statuspage v2 JSON. They are internal
// records, downloaded as files; the public sees only the status page.

// IncidentExportMarkdown serves the incident as a Markdown postmortem. A downloaded file has no
// address to resolve a relative link against, so its images point at the app's absolute address,
// which serves them to those signed in, as the incident page does.
func (h *Handlers) IncidentExportMarkdown(c echo.Context) error {
	inc, err := h.loadIncident(c)
	if err != nil {
		return err
	}
	base, err := h.siteBase(c.Request().Context())
	if err != nil {
		return err
	}
	attachment(c, inc, ".md")
	return c.Blob(http.StatusOK, "text/markdown; charset=utf-8", []byte(models.ImageLinks(mdexport.Render(inc), base)))
}

// IncidentExportJSON serves the incident as the JSON API shows it.
func (h *Handlers) IncidentExportJSON(c echo.Context) error {
	inc, err := h.loadIncident(c)
	if err != nil {
		return err
	}
	return exportJSON(c, inc, ".json", apiIncident(inc, inc.Links).wire())
}

// IncidentExportStatuspage serves the incident as one Statuspage v2 incident, as the status
// page's API would show it were it public: its public updates and its published postmortem.
func (h *Handlers) IncidentExportStatuspage(c echo.Context) error {
	inc, err := h.loadIncident(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	settings, err := h.Store.StatusSettings(ctx)
	if err != nil {
		return err
	}
	exported, err := h.exportPublic(ctx, []models.Incident{*inc}, h.statusPageInfo(settings, nil), settings.Location())
	if err != nil {
		return err
	}
	return exportJSON(c, inc, ".statuspage.json", exported[0])
}

func exportJSON(c echo.Context, inc *models.Incident, suffix string, v any) error {
	body, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	attachment(c, inc, suffix)
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, append(body, '\n'))
}

var unsafeFileChars = regexp.MustCompile(`[^a-z0-9]+`)

// attachment names the download after the incident: incident-12-canada-slow-responses.md.
func attachment(c echo.Context, inc *models.Incident, suffix string) {
	slug := strings.Trim(unsafeFileChars.ReplaceAllString(strings.ToLower(inc.Title), "-"), "-")
	if len(slug) > 60 {
		slug = strings.TrimRight(slug[:60], "-")
	}
	name := "incident-" + itoa(inc.ID)
	if slug != "" {
		name += "-" + slug
	}
	c.Response().Header().Set(echo.HeaderContentDisposition, `attachment; filename="`+name+suffix+`"`)
}
