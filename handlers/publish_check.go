package handlers

import (
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"hindsight/models"
)

// The one publish check. The postmortem page, the incident form and the API publish only when it
// finds nothing, or when an admin publishes over its findings with a reason, which
// Store.PublishOverFindings records in the history with the findings it overrode.

// publishProblem says what is missing to publish over findings: the tick and a short reason.
func publishProblem(anyway bool, reason string) string {
	switch {
	case !anyway:
		return "The check below found things missing or doubtful. Fix them, or tick “Publish anyway” and say why."
	case reason == "":
		return "Say why it is published over the findings; the reason is kept in the incident’s history."
	case len([]rune(reason)) > 1000:
		return "Keep the reason under 1,000 characters."
	}
	return ""
}

// publishRefusal is a write refused by the publish check: its findings, and what to do.
type publishRefusal struct {
	Findings []models.Finding
	Problem  string
}

func (r *publishRefusal) message() string {
	var b strings.Builder
	b.WriteString("Publishing needs the publish check to pass: ")
	for n, f := range r.Findings {
		if n > 0 {
			b.WriteString(" ")
		}
		b.WriteString(f.Message)
	}
	b.WriteString(" ")
	b.WriteString(strings.Replace(r.Problem, "The check below found things missing or doubtful. ", "", 1))
	return b.String()
}

// checkPublish runs the publish check on a form or API write that would publish the postmortem:
// stored is the incident as it is (nil for a new one), and the check looks at it as the write
// would leave it. It returns nothing when the write does not publish or the check finds
// nothing; the override to record when an admin publishes over findings; or the refusal.
func (h *Handlers) checkPublish(c echo.Context, stored *models.Incident, in models.IncidentInput, children models.Children, anyway bool, reason string) (*models.PublishOverride, *publishRefusal, error) {
	state := ""
	if stored != nil {
		state = stored.PostmortemState
	}
	if !models.PublishesPostmortem(state, in) {
		return nil, nil, nil
	}
	findings, err := h.completeness(c, models.IncidentAsWritten(stored, in, children))
	if err != nil || len(findings) == 0 {
		return nil, nil, err
	}
	reason = strings.TrimSpace(reason)
	if problem := publishProblem(anyway, reason); problem != "" {
		return nil, &publishRefusal{Findings: findings, Problem: problem}, nil
	}
	override := &models.PublishOverride{Reason: reason}
	for _, f := range findings {
		override.Findings = append(override.Findings, f.Message)
	}
	return override, nil, nil
}

// storedForPublish reads the stored incident when a write asks for a published postmortem, for
// checkPublish; other writes read nothing more.
func (h *Handlers) storedForPublish(c echo.Context, id int64, in models.IncidentInput) (*models.Incident, error) {
	if in.PostmortemState != models.PostmortemPublished {
		return nil, nil
	}
	inc, err := h.Store.GetIncident(c.Request().Context(), id)
	if err != nil {
		return nil, storeError(err, "incident")
	}
	return inc, nil
}

// publishAfterWrite publishes, over the findings, an incident a write saved with its postmortem
// state held back, through the same path as the postmortem page.
func (h *Handlers) publishAfterWrite(c echo.Context, inc *models.Incident, override *models.PublishOverride) (*models.Incident, error) {
	ctx := c.Request().Context()
	if _, err := h.Store.PublishOverFindings(ctx, inc.ID, inc.Version, models.PostmortemPublished, override); err != nil {
		if errors.Is(err, models.ErrConflict) {
			return nil, echo.NewHTTPError(http.StatusConflict, "The incident was saved, but changed again before it could be published; review it and publish from the postmortem page.")
		}
		return nil, storeError(err, "incident")
	}
	published, err := h.Store.GetIncident(ctx, inc.ID)
	if err != nil {
		return nil, storeError(err, "incident")
	}
	return published, nil
}

// apiPublishRefused answers an API write the publish check refused: 422 with the findings.
func apiPublishRefused(c echo.Context, r *publishRefusal) error {
	type finding struct {
		Rule    string `json:"rule"`
		Field   string `json:"field"`
		Message string `json:"message"`
	}
	body := struct {
		Error    string    `json:"error"`
		Findings []finding `json:"findings"`
	}{Error: "The publish check found things missing or doubtful. Fix them, or, as an admin, send \"publish_anyway\": true with a \"publish_reason\"."}
	for _, f := range r.Findings {
		body.Findings = append(body.Findings, finding{f.Rule, f.Field, f.Message})
	}
	return c.JSON(http.StatusUnprocessableEntity, body)
}
