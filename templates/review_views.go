package templates

import (
	"slices"

	"hindsight/models"
)

// ReviewPageView is an incident's review page: who is asked, who approves, and the threads on
// each section.
type ReviewPageView struct {
	Page
	Incident *models.Incident
	Review   *models.Review
	Accounts []models.User // active accounts, for the request form
	Sections []ReviewSection
	// The new-thread form's input and errors, and which section it was for.
	ThreadSection string
	ThreadBody    string
	ThreadErrors  models.FieldErrors
	RequestErrors models.FieldErrors
	// ReplyTo and ReplyError show a refused reply under its thread, with the text kept.
	ReplyTo    int64
	ReplyBody  string
	ReplyError string
}

// ReviewSection is one section of the postmortem with its text and threads.
type ReviewSection struct {
	Slug, Heading, Text string
	Threads             []models.ReviewThread
}

// Requested tells whether the account was asked for a review.
func (v ReviewPageView) Requested(id int64) bool { return v.Review.RequestOf(id) != nil }

// DebriefPageView is an incident's debrief page.
type DebriefPageView struct {
	Page
	Incident  *models.Incident
	Debrief   *models.Debrief // nil until scheduled
	Accounts  []models.User
	Suggested []int64
	Form      DebriefFormValues
	Errors    models.FieldErrors
	Notes     string
	// NotesPreview is the notes rendered by the sanitiser, shown by the preview button.
	NotesPreview bool
	NotesError   string
	Questions    []models.QuestionGroup
	Invitations  []models.Invitation
	Notice       string
	MailReady    bool // an SMTP server is configured
}

// DebriefFormValues is the schedule form as typed.
type DebriefFormValues struct {
	StartsAt, TimeZone, Duration string
	FacilitatorID, NoteTakerID   int64
	Participants                 []int64
}

// Picked tells whether an account is among the participants chosen.
func (f DebriefFormValues) Picked(id int64) bool { return slices.Contains(f.Participants, id) }

// IsSuggested tells whether an account is named in the incident.
func (v DebriefPageView) IsSuggested(id int64) bool { return slices.Contains(v.Suggested, id) }

// ReviewsPageView is /reviews: what the signed-in person has to review or attend.
type ReviewsPageView struct {
	Page
	Work *models.MyReviewWork
}

func userName(u *models.User) string {
	if u == nil {
		return "a removed account"
	}
	if u.Name != "" {
		return u.Name
	}
	return u.Email
}

func accountLabel(u models.User) string {
	if u.Name != "" {
		return u.Name + " (" + u.Email + ")"
	}
	return u.Email
}

func personOrDash(u *models.User) string {
	if u == nil {
		return "—"
	}
	return userName(u)
}

func accountOptions(users []models.User) []Option {
	out := make([]Option, len(users))
	for n, u := range users {
		out[n] = Option{Itoa(u.ID), accountLabel(u)}
	}
	return out
}

func idString(id int64) string {
	if id == 0 {
		return ""
	}
	return Itoa(id)
}

func invitationState(inv models.Invitation) string {
	switch {
	case inv.SentAt != nil:
		return "sent " + WhenUTC(*inv.SentAt)
	case inv.FailedAt != nil:
		return "given up: " + inv.LastError
	case inv.LastError != "":
		return "retrying (" + inv.LastError + ")"
	}
	return "on its way"
}

func sectionHeading(slug string) string {
	if h, ok := models.CoreSectionLabels[slug]; ok {
		return h
	}
	switch slug {
	case "timeline":
		return "Timeline"
	case "follow_ups":
		return "Follow-ups"
	}
	return Label(slug)
}
