package models

import (
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"time"

	"github.com/go-playground/validator/v10"
)

// TitleMax is the longest title an incident or follow-up may have.
const TitleMax = 200

// IncidentInput is what a person or an API client submits to create or change an incident.
// Field names in validation errors are the snake_case names of DESIGN §1.
type IncidentInput struct {
	Title           string   `json:"title" validate:"required,max=200"`
	Summary         string   `json:"summary" validate:"max=5000"`
	Severity        string   `json:"severity" validate:"required,oneof=sev1 sev2 sev3 sev4"`
	Status          string   `json:"status" validate:"required,oneof=investigating identified monitoring resolved"`
	DetectionMethod string   `json:"detection_method" validate:"omitempty,oneof=automated_alert synthetic_monitor customer_report staff_report other"`
	CustomerImpact  string   `json:"customer_impact" validate:"max=100000"`
	RootCause       string   `json:"root_cause" validate:"max=100000"`
	Trigger         string   `json:"trigger" validate:"max=100000"`
	Detection       string   `json:"detection" validate:"max=100000"`
	Response        string   `json:"response" validate:"max=100000"`
	Lessons         string   `json:"lessons" validate:"max=100000"`
	TimeZone        string   `json:"time_zone" validate:"required,timezone"`
	PostmortemState string   `json:"postmortem_state" validate:"required,oneof=none draft in_review published"`
	Public          bool     `json:"public"`
	Services        []string `json:"services" validate:"max=50,dive,required,max=100"`
	Regions         []string `json:"regions" validate:"max=50,dive,required,max=100"`
	Factors         []string `json:"factors" validate:"max=50,dive,required,max=60"`
	Milestones      Milestones
	// NearMiss marks an incident without customer impact: its figures are not asked for.
	NearMiss bool `json:"near_miss"`
	// Template is the slug of the template the postmortem follows; empty for its severity's default.
	Template string `json:"template" validate:"omitempty,max=40"`
	// Sections are the extra sections of the template; nil leaves the stored ones alone on update.
	Sections *[]SectionInput `json:"sections,omitempty" validate:"-"`
	// MilestoneDays names the milestones known only to the day ("triggered_at"); their figures
	// are approximate.
	MilestoneDays []string `json:"milestone_days" validate:"max=6,dive,oneof=triggered_at started_at detected_at acknowledged_at mitigated_at resolved_at"`
	// Source and ExternalID mark an imported record so a re-import finds it; set only on create.
	Source     string `json:"-"`
	ExternalID string `json:"-"`
	// Origin says where the milestones came from; by default the context's actor typed them.
	Origin MilestoneOrigin `json:"-"`
	// CreatedAt and UpdatedAt are an imported record's own, kept when it is created so that an
	// old incident does not look new; nil means now. Only imports set them.
	CreatedAt *time.Time `json:"-" validate:"omitempty,instant"`
	UpdatedAt *time.Time `json:"-" validate:"omitempty,instant"`
	// Statuspage holds what an imported Statuspage incident says that Hindsight does not model.
	Statuspage *StatuspageIncident `json:"-"`
}

// ValidateIncident checks an incident's input, its extra sections included; it fills in the
// sections' missing slugs from their headings.
func ValidateIncident(in IncidentInput) FieldErrors {
	errs := Validate(in)
	if in.Sections != nil {
		errs = append(errs, validateSections(*in.Sections)...)
	}
	return errs
}

// Milestones are the six instants of an incident, in UTC, nil when nobody knows them.
type Milestones struct {
	TriggeredAt    *time.Time `json:"triggered_at" validate:"omitempty,instant"`
	StartedAt      *time.Time `json:"started_at" validate:"omitempty,instant"`
	DetectedAt     *time.Time `json:"detected_at" validate:"omitempty,instant"`
	AcknowledgedAt *time.Time `json:"acknowledged_at" validate:"omitempty,instant"`
	MitigatedAt    *time.Time `json:"mitigated_at" validate:"omitempty,instant"`
	ResolvedAt     *time.Time `json:"resolved_at" validate:"omitempty,instant"`
}

// MilestoneNames are the milestones in the order they should happen.
var MilestoneNames = []string{"triggered_at", "started_at", "detected_at", "acknowledged_at", "mitigated_at", "resolved_at"}

// MilestoneLabels are the milestones as people call them.
var MilestoneLabels = map[string]string{
	"triggered_at":    "Triggered",
	"started_at":      "Impact started",
	"detected_at":     "Detected",
	"acknowledged_at": "Acknowledged",
	"mitigated_at":    "Mitigated",
	"resolved_at":     "Resolved",
}

// List returns the milestones in MilestoneNames order.
func (m Milestones) List() []*time.Time {
	return []*time.Time{m.TriggeredAt, m.StartedAt, m.DetectedAt, m.AcknowledgedAt, m.MitigatedAt, m.ResolvedAt}
}

// Milestones returns the incident's six instants.
func (i *Incident) Milestones() Milestones {
	return Milestones{i.TriggeredAt, i.StartedAt, i.DetectedAt, i.AcknowledgedAt, i.MitigatedAt, i.ResolvedAt}
}

// SetMilestones gives the incident the six instants.
func (i *Incident) SetMilestones(m Milestones) {
	i.TriggeredAt, i.StartedAt, i.DetectedAt = m.TriggeredAt, m.StartedAt, m.DetectedAt
	i.AcknowledgedAt, i.MitigatedAt, i.ResolvedAt = m.AcknowledgedAt, m.MitigatedAt, m.ResolvedAt
}

// Map returns the milestones each passed through f, which is given nil for an unknown one.
func (m Milestones) Map(f func(*time.Time) *time.Time) Milestones {
	return Milestones{f(m.TriggeredAt), f(m.StartedAt), f(m.DetectedAt), f(m.AcknowledgedAt), f(m.MitigatedAt), f(m.ResolvedAt)}
}

// OrderWarning says that one milestone comes before another it should follow.
type OrderWarning struct {
	Field, Before string // Field is earlier than Before, which should precede it
	Message       string
}

// OrderWarnings lists the milestones that are out of order. Such milestones are saved anyway:
// the record may be right and the expectation wrong, but people should look twice.
func (m Milestones) OrderWarnings() []OrderWarning {
	var warnings []OrderWarning
	list := m.List()
	for later := range list {
		if list[later] == nil {
			continue
		}
		// Compare with the nearest earlier milestone that is known.
		for earlier := later - 1; earlier >= 0; earlier-- {
			if list[earlier] == nil {
				continue
			}
			if list[later].Before(*list[earlier]) {
				warnings = append(warnings, OrderWarning{
					Field:  MilestoneNames[later],
					Before: MilestoneNames[earlier],
					Message: fmt.Sprintf("%s is before %s.", MilestoneLabels[MilestoneNames[later]],
						strings.ToLower(MilestoneLabels[MilestoneNames[earlier]])),
				})
			}
			break
		}
	}
	return warnings
}

// EventInput is a new or changed timeline event.
type EventInput struct {
	At     time.Time `json:"at" validate:"required,instant"`
	Kind   string    `json:"kind" validate:"required,oneof=status_update alert action change note"`
	Status string    `json:"status" validate:"required_if=Kind status_update,omitempty,oneof=investigating identified monitoring resolved"`
	Body   string    `json:"body" validate:"max=100000"`
	Public bool      `json:"public"`
	// CreatedAt and UpdatedAt are an imported entry's own (a Statuspage update's created_at and
	// updated_at); nil means now. Only imports set them.
	CreatedAt *time.Time `json:"-" validate:"omitempty,instant"`
	UpdatedAt *time.Time `json:"-" validate:"omitempty,instant"`
	// Statuspage holds what an imported Statuspage update says that Hindsight does not model.
	Statuspage *StatuspageUpdate `json:"-"`
}

// NotePublicMessage explains why a note cannot be shown to customers.
const NotePublicMessage = "A note is internal and never shown to customers: untick “Shown to customers”, or choose another kind."

// ValidateEvent checks a timeline entry as a person or an API client submits it: its fields, and
// that a note is not marked public. A note is the team's own record ("Customer ACME escalated"),
// so asking for one on the status page is refused with a message rather than obeyed; the store
// keeps every note internal whatever reaches it (imports bring a status page's "postmortem"
// updates in as notes), see EventPublic.
func ValidateEvent(in EventInput) FieldErrors {
	errs := Validate(in)
	if in.Kind == "note" && in.Public {
		errs.Add("public", NotePublicMessage)
	}
	return errs
}

// EventPublic is whether the store shows an entry of this kind to customers when public is asked
// for: never for a note.
func EventPublic(kind string, public bool) bool { return public && kind != "note" }

// WindowInput is a new or changed impact window.
type WindowInput struct {
	StartedAt time.Time  `json:"started_at" validate:"required,instant"`
	EndedAt   *time.Time `json:"ended_at" validate:"omitempty,instant"`
	Level     string     `json:"level" validate:"required,oneof=degraded partial_outage major_outage"`
	Note      string     `json:"note" validate:"max=5000"`
	Services  []string   `json:"services" validate:"max=50,dive,required,max=100"`
}

// FollowUpInput is a new or changed follow-up action.
type FollowUpInput struct {
	Title        string     `json:"title" validate:"required,max=200"`
	Description  string     `json:"description" validate:"max=100000"`
	Kind         string     `json:"kind" validate:"required,oneof=prevent detect mitigate process"`
	Priority     string     `json:"priority" validate:"required,oneof=p1 p2 p3"`
	Owner        string     `json:"owner" validate:"max=200"`
	DueOn        *time.Time `json:"due_on" validate:"omitempty,instant"`
	Status       string     `json:"status" validate:"required,oneof=open in_progress done wont_do"`
	TrackerURL   string     `json:"tracker_url" validate:"omitempty,max=2000,weburl"`
	Verification string     `json:"verification" validate:"max=100000"`
	Factors      []string   `json:"factors" validate:"max=50,dive,required,max=60"`
	// DoneAt is when a done follow-up was completed, as entered (back-filled history keeps its
	// real dates) or imported; left empty, the store keeps the earlier completion time or takes
	// the moment it was marked done. Only a done follow-up keeps it (CheckDoneAt has its rules).
	DoneAt *time.Time `json:"done_at" validate:"omitempty,instant"`
}

// LinkInput links an incident to another.
type LinkInput struct {
	Kind       string `json:"kind" validate:"required,oneof=recurrence_of related duplicate_of caused_by"`
	IncidentID int64  `json:"incident_id" validate:"required,gt=0"`
}

// FieldError is one problem with one submitted field.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// FieldErrors is every problem found in one submission.
type FieldErrors []FieldError

func (e FieldErrors) Error() string {
	parts := make([]string, len(e))
	for n, f := range e {
		parts[n] = f.Field + ": " + f.Message
	}
	return "invalid input: " + strings.Join(parts, "; ")
}

// Add records a problem with a field.
func (e *FieldErrors) Add(field, message string) { *e = append(*e, FieldError{field, message}) }

// For returns the first message about a field, or "".
func (e FieldErrors) For(field string) string {
	for _, f := range e {
		if f.Field == field {
			return f.Message
		}
	}
	return ""
}

// Prefixed returns the errors with each field name prefixed, for nested records.
func (e FieldErrors) Prefixed(prefix string) FieldErrors {
	out := make(FieldErrors, len(e))
	for n, f := range e {
		out[n] = FieldError{prefix + f.Field, f.Message}
	}
	return out
}

var validate = newValidator()

func newValidator() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			return ""
		}
		return name
	})
	// weburl accepts only http and https links, so a javascript: URL can never become a link.
	_ = v.RegisterValidation("slug", func(fl validator.FieldLevel) bool {
		return slugPattern.MatchString(fl.Field().String())
	})
	_ = v.RegisterValidation("instant", func(fl validator.FieldLevel) bool {
		t, ok := fl.Field().Interface().(time.Time)
		return ok && InstantInRange(t)
	})
	_ = v.RegisterValidation("weburl", func(fl validator.FieldLevel) bool {
		u, err := url.Parse(fl.Field().String())
		return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
	})
	return v
}

// Validate checks a submission against its rules and returns one message per bad field.
func Validate(input any) FieldErrors {
	err := validate.Struct(input)
	if err == nil {
		return nil
	}
	var fieldErrors FieldErrors
	verrs, ok := err.(validator.ValidationErrors)
	if !ok {
		fieldErrors.Add("", err.Error())
		return fieldErrors
	}
	for _, fe := range verrs {
		fieldErrors.Add(fieldPath(fe), message(fe))
	}
	return fieldErrors
}

// fieldPath turns validator's "IncidentInput.services[2]" into "services".
func fieldPath(fe validator.FieldError) string {
	ns := fe.Namespace()
	if _, rest, ok := strings.Cut(ns, "."); ok {
		ns = rest
	}
	// The milestones are fields of their own in every form and body.
	ns = strings.TrimPrefix(ns, "Milestones.")
	if i := strings.IndexByte(ns, '['); i >= 0 && !strings.Contains(ns[i:], ".") {
		ns = ns[:i]
	}
	return ns
}

func message(fe validator.FieldError) string {
	switch fe.Tag() {
	case "required", "required_if":
		return "This field is required."
	case "max":
		if fe.Kind() == reflect.Slice {
			return fmt.Sprintf("At most %s entries.", fe.Param())
		}
		return fmt.Sprintf("Must be at most %s characters.", fe.Param())
	case "min":
		return fmt.Sprintf("Must be at least %s characters.", fe.Param())
	case "email":
		return "Not an email address."
	case "oneof":
		return fmt.Sprintf("Must be one of: %s.", strings.ReplaceAll(fe.Param(), " ", ", "))
	case "timezone":
		return "Not a known time zone; use a name like Europe/London or UTC."
	case "slug":
		return "Use lowercase letters, digits and single hyphens, like retry-amplification."
	case "gt":
		return "Must be a positive number."
	case "instant":
		return InstantMessage
	case "weburl":
		return "Must be an http or https link."
	}
	return "This value is not valid."
}

// ValidateWindow checks an impact window, including that it does not end before it starts.
func ValidateWindow(in WindowInput) FieldErrors {
	errs := Validate(in)
	if in.EndedAt != nil && in.EndedAt.Before(in.StartedAt) {
		errs.Add("ended_at", "The window ends before it starts.")
	}
	return errs
}
