package handlers

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// ReviewShow shows an incident's review: the reviews asked for and the approvals, and each
// section of the postmortem with its threads of comments.
func (h *Handlers) ReviewShow(c echo.Context) error {
	view, err := h.reviewPage(c)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.ReviewPage(view))
}

// reviewPage builds the review page of the incident in the path.
func (h *Handlers) reviewPage(c echo.Context) (templates.ReviewPageView, error) {
	inc, err := h.loadIncident(c)
	if err != nil {
		return templates.ReviewPageView{}, err
	}
	ctx := c.Request().Context()
	review, err := h.Store.ReviewOf(ctx, inc.ID)
	if err != nil {
		return templates.ReviewPageView{}, err
	}
	accounts, err := h.activeAccounts(c)
	if err != nil {
		return templates.ReviewPageView{}, err
	}
	view := templates.ReviewPageView{
		Page:     templates.Page{Title: "Review: " + inc.Title, Section: "reviews"},
		Incident: inc, Review: review, Accounts: accounts,
	}
	for _, slug := range models.CoreSections {
		view.Sections = append(view.Sections, templates.ReviewSection{Slug: slug, Heading: models.CoreSectionLabels[slug], Text: inc.CoreSectionText(slug), Threads: review.ThreadsOn(slug)})
	}
	for _, sec := range inc.Sections {
		view.Sections = append(view.Sections, templates.ReviewSection{Slug: sec.Slug, Heading: sec.Heading, Text: sec.Body, Threads: review.ThreadsOn(sec.Slug)})
	}
	view.Sections = append(view.Sections,
		templates.ReviewSection{Slug: "timeline", Heading: "Timeline", Threads: review.ThreadsOn("timeline")},
		templates.ReviewSection{Slug: "follow_ups", Heading: "Follow-ups", Threads: review.ThreadsOn("follow_ups")})
	return view, nil
}

// activeAccounts lists the accounts that can be asked to review or attend: not disabled.
func (h *Handlers) activeAccounts(c echo.Context) ([]models.User, error) {
	users, err := h.Store.ListUsers(c.Request().Context())
	if err != nil {
		return nil, err
	}
	var out []models.User
	for _, u := range users {
		if u.DisabledAt == nil {
			out = append(out, u)
		}
	}
	return out, nil
}

// formIDs reads a list of account ids from a form; anything not a number is dropped, and the
// store refuses ids that name no account.
func formIDs(values []string) []int64 {
	var out []int64
	for _, v := range values {
		if id, err := parseID(v); err == nil {
			out = append(out, id)
		}
	}
	return out
}

func parseID(s string) (int64, error) {
	id, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err == nil && id <= 0 {
		err = strconv.ErrRange
	}
	return id, err
}
