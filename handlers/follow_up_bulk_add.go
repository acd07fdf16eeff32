package handlers

import (
	"errors"
	"net/http"
	"regexp"
	"strings"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// maxBulkFollowUps bounds one pasted list.
const maxBulkFollowUps = 200

// listMark is a bullet or number that starts a line of a pasted list, with or without a task
// box after it: "- ", "* ", "3. ", "2) ", "[ ] ", "- [x] ".
var listMark = regexp.MustCompile(`^\s*(?:(?:[-*•+]|\d{1,3}[.)])\s+)?(?:\[[ xX]\]\s+)?`)

// FollowUpBulkAdd adds a pasted list of follow-ups, one per line, all in one transaction.
func (h *Handlers) FollowUpBulkAdd(c echo.Context) error {
	incidentID, err := pathID(c, "id")
	if err != nil {
		return err
	}
	form, err := formValues(c)
	if err != nil {
		return err
	}
	text := form.Get("titles")
	var list []models.FollowUpInput
	var errs models.FieldErrors
	for _, line := range strings.Split(text, "\n") {
		title := strings.TrimSpace(listMark.ReplaceAllString(line, ""))
		title = strings.TrimSpace(strings.ReplaceAll(title, "**", ""))
		if title == "" {
			continue
		}
		in := models.FollowUpInput{Title: title, Kind: "prevent", Priority: "p2", Status: "open"}
		if fe := models.Validate(in); len(fe) > 0 && errs.For("titles") == "" {
			errs.Add("titles", "“"+shorten(title, 60)+"”: "+fe[0].Message)
		}
		list = append(list, in)
	}
	switch {
	case len(list) == 0 && len(errs) == 0:
		errs.Add("titles", "Write one follow-up per line.")
	case len(list) > maxBulkFollowUps:
		errs.Add("titles", "At most 200 follow-ups at once.")
	}
	if len(errs) == 0 {
		err = h.Store.AddChildren(c.Request().Context(), incidentID, models.Children{FollowUps: &list})
		var refused models.FieldErrors
		if errors.As(err, &refused) {
			errs = models.FieldErrors{{Field: "titles", Message: refused[0].Message}}
		} else if err != nil {
			return storeError(err, "incident")
		}
	}
	if len(errs) > 0 {
		return h.childFormFailed(c, incidentID, http.StatusUnprocessableEntity, func(v *templates.IncidentView) {
			v.BulkText, v.BulkError, v.Open = text, errs.For("titles"), "follow-ups-bulk"
		})
	}
	if isHTMX(c) {
		return h.sectionSaved(c, incidentID, "follow-ups")
	}
	return seeOther(c, incidentURL(incidentID)+"#follow-ups")
}
