package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// ImportForm shows the upload form for importing another status page's incidents; a dry run is
// the default.
func (h *Handlers) ImportForm(c echo.Context) error {
	return render(c, http.StatusOK, templates.ImportPage(templates.ImportView{
		Page: templates.Page{Title: "Import incidents", Section: "users"}, Format: "statuspage", DryRun: true,
	}))
}
