package handlers

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// LinkCreate links the incident to another one.
func (h *Handlers) LinkCreate(c echo.Context) error {
	incidentID, err := pathID(c, "id")
	if err != nil {
		return err
	}
	values := templates.LinkFormValues{Kind: c.FormValue("kind"), IncidentID: strings.TrimPrefix(strings.TrimSpace(c.FormValue("incident_id")), "#")}
	in := models.LinkInput{Kind: values.Kind}
	var errs models.FieldErrors
	if id, err := strconv.ParseInt(values.IncidentID, 10, 64); err == nil {
		in.IncidentID = id
	} else {
		errs.Add("incident_id", "Write the other incident's number, like 12.")
	}
	errs = mergeErrors(errs, models.Validate(in))
	if len(errs) == 0 {
		_, err = h.Store.AddLink(c.Request().Context(), incidentID, in)
		var fe models.FieldErrors
		switch {
		case errors.As(err, &fe):
			errs = fe
		case err != nil:
			return storeError(err, "incident")
		default:
			return seeOther(c, incidentURL(incidentID)+"#links")
		}
	}
	return h.childFormFailed(c, incidentID, http.StatusUnprocessableEntity, func(v *templates.IncidentView) {
		v.NewLink = templates.ChildForm[templates.LinkFormValues]{Values: values, Errors: errs}
		v.Open = "links"
	})
}
