package handlers

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// IncidentPasteRead reads text pasted on an incident's page into the status updates, impact
// windows and follow-ups it would add, shown for the user to check; nothing is added yet.
func (h *Handlers) IncidentPasteRead(c echo.Context) error {
	inc, err := h.loadIncident(c)
	if err != nil {
		return err
	}
	form, err := formValues(c)
	if err != nil {
		return err
	}
	view, err := h.incidentView(c, inc)
	if err != nil {
		return err
	}
	paste := templates.IncidentPaste{Text: form.Get("paste"), TimeZone: strings.TrimSpace(form.Get("paste_time_zone"))}
	status := http.StatusOK
	zone, errs := parseZone(paste.TimeZone)
	switch {
	case len(errs) > 0:
		paste.Error, status = errs[0].Message, http.StatusUnprocessableEntity
	case strings.TrimSpace(paste.Text) == "":
		paste.Error, status = "Paste the status-page history or the follow-ups to read.", http.StatusUnprocessableEntity
	default:
		draft, err := readPasted(paste.Text, zone)
		if err != nil {
			return err
		}
		paste.Read = true
		paste.Rows = templates.IncidentForm{Owners: view.Owners, Values: templates.IncidentFormValues{TimeZone: zone.String()}}
		draftRows(&paste.Rows.Values, draft, zone)
	}
	view.Paste = paste
	return render(c, status, templates.IncidentPage(view))
}
