package models

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
)

// CoreSections are the incident's own postmortem sections, in the order pages show them: the
// figures, the exports and the public page rely on them, whatever template an incident follows.
// A template section with one of these slugs only gives that section a prompt (and may ask for it).
var CoreSections = []string{"summary", "customer_impact", "root_cause", "trigger", "detection", "response", "lessons"}

// CoreSectionLabels are the core sections' headings.
var CoreSectionLabels = map[string]string{
	"summary": "Summary", "customer_impact": "Customer impact", "root_cause": "Root cause",
	"trigger": "Trigger", "detection": "Detection", "response": "Response", "lessons": "Lessons",
}

// IsCoreSection tells whether a slug names one of the incident's own sections.
func IsCoreSection(slug string) bool { return slices.Contains(CoreSections, slug) }

// CoreSectionText is the text of one of the incident's own sections.
func (i *Incident) CoreSectionText(slug string) string {
	switch slug {
	case "summary":
		return i.Summary
	case "customer_impact":
		return i.CustomerImpact
	case "root_cause":
		return i.RootCause
	case "trigger":
		return i.Trigger
	case "detection":
		return i.Detection
	case "response":
		return i.Response
	case "lessons":
		return i.Lessons
	}
	return ""
}

// PostmortemTemplate is a postmortem's outline: the sections to write and the questions each
// answers. Built-in templates have no ID.
type PostmortemTemplate struct {
	ID          int64
	Slug        string
	Name        string
	Description string
	Sections    []TemplateSection `gorm:"foreignKey:TemplateID"`
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Builtin tells whether the template comes with Hindsight (and cannot be changed).
func (t *PostmortemTemplate) Builtin() bool { return t.ID == 0 }

// Section returns the template's section of a slug, or nil.
func (t *PostmortemTemplate) Section(slug string) *TemplateSection {
	if t == nil {
		return nil
	}
	for n := range t.Sections {
		if t.Sections[n].Slug == slug {
			return &t.Sections[n]
		}
	}
	return nil
}

// Extra lists the template's sections beyond the incident's own.
func (t *PostmortemTemplate) Extra() []TemplateSection {
	if t == nil {
		return nil
	}
	var out []TemplateSection
	for _, s := range t.Sections {
		if !IsCoreSection(s.Slug) {
			out = append(out, s)
		}
	}
	return out
}

// TemplateSection is one section of a template.
type TemplateSection struct {
	ID         int64
	TemplateID int64
	Position   int
	Slug       string
	Heading    string
	Prompt     string // the questions to answer, shown beside the editor
	Public     bool   // published with the postmortem
	Required   bool   // the completeness check asks for it before publishing
}

// The built-in templates: Google's SRE postmortem, the learning-from-incidents outline of
// contributors, mitigators and risks, and a lightweight one for small incidents.
var builtinTemplates = []PostmortemTemplate{
	{
		Slug: "google-sre", Name: "Google SRE",
		Description: "The postmortem template of Google's Site Reliability Engineering book: impact, root causes, trigger, resolution, detection, action items, lessons learned and a timeline.",
		Sections: []TemplateSection{
			{Slug: "summary", Heading: "Summary", Prompt: "What happened, in two or three sentences, for someone who was not there.", Required: true},
			{Slug: "customer_impact", Heading: "Impact", Prompt: "Who was affected, how many, for how long? Which requests or revenue were lost?", Required: true},
			{Slug: "root_cause", Heading: "Root causes", Prompt: "Which conditions together made this possible? Name several; there is rarely one.", Required: true},
			{Slug: "trigger", Heading: "Trigger", Prompt: "What change or event set the latent problem off?"},
			{Slug: "response", Heading: "Resolution", Prompt: "What was done to mitigate and then resolve it, and how did the team know it worked?", Required: true},
			{Slug: "detection", Heading: "Detection", Prompt: "How was it noticed: an alert, a customer, a person? How could it have been seen sooner?"},
			{Slug: "lessons", Heading: "Lessons learned", Prompt: "What does the team know now that it did not before?"},
			{Slug: "went_well", Heading: "What went well", Prompt: "What helped: tools, people, practices that worked as hoped?", Public: true, Required: true},
			{Slug: "went_wrong", Heading: "What went wrong", Prompt: "What made it worse or slower? Describe conditions, not people.", Public: true, Required: true},
			{Slug: "got_lucky", Heading: "Where we got lucky", Prompt: "What kept it from being worse that nobody planned?", Public: false},
		},
	},
	{
		Slug: "contributors-mitigators-risks", Name: "Contributors, mitigators, risks",
		Description: "From the learning-from-incidents practice: the factors that contributed, the ones that limited the damage, and the risks the incident revealed, instead of one root cause.",
		Sections: []TemplateSection{
			{Slug: "summary", Heading: "Summary", Prompt: "What happened, for someone who was not there.", Required: true},
			{Slug: "customer_impact", Heading: "Impact", Prompt: "Who noticed, and what did they experience?"},
			{Slug: "contributors", Heading: "Contributors", Prompt: "Which conditions, decisions and pressures made this possible? How did each look at the time?", Public: true, Required: true},
			{Slug: "mitigators", Heading: "Mitigators", Prompt: "What limited the damage or sped up the recovery, planned or not?", Public: true, Required: true},
			{Slug: "risks", Heading: "Risks", Prompt: "What did the incident reveal that could hurt next time, here or elsewhere?", Required: true},
		},
	},
	{
		Slug: "lightweight", Name: "Lightweight",
		Description: "For small incidents: what happened, what was done, and what follows.",
		Sections: []TemplateSection{
			{Slug: "summary", Heading: "What happened", Prompt: "A few sentences: what broke, who noticed, how it ended.", Required: true},
			{Slug: "response", Heading: "What we did", Prompt: "The steps that fixed it."},
		},
	},
}

func init() {
	for t := range builtinTemplates {
		for n := range builtinTemplates[t].Sections {
			builtinTemplates[t].Sections[n].Position = n + 1
		}
	}
}

// BuiltinTemplate returns a built-in template by slug, or nil.
func BuiltinTemplate(slug string) *PostmortemTemplate {
	for n := range builtinTemplates {
		if builtinTemplates[n].Slug == slug {
			t := builtinTemplates[n]
			t.Sections = slices.Clone(t.Sections)
			return &t
		}
	}
	return nil
}

// Templates lists the built-in templates, then those admins added, by name.
func (s *Store) Templates(ctx context.Context) ([]PostmortemTemplate, error) {
	out := make([]PostmortemTemplate, 0, len(builtinTemplates))
	for _, b := range builtinTemplates {
		out = append(out, *BuiltinTemplate(b.Slug))
	}
	var custom []PostmortemTemplate
	err := s.read.WithContext(ctx).Preload("Sections", func(db *gorm.DB) *gorm.DB { return db.Order("position, id") }).
		Order("name, id").Find(&custom).Error
	if err != nil {
		return nil, fmt.Errorf("list templates: %w", err)
	}
	return append(out, custom...), nil
}

// Template returns a template by slug, built-in or not; ErrNotFound when there is none.
func (s *Store) Template(ctx context.Context, slug string) (*PostmortemTemplate, error) {
	if b := BuiltinTemplate(slug); b != nil {
		return b, nil
	}
	var t PostmortemTemplate
	err := s.read.WithContext(ctx).Preload("Sections", func(db *gorm.DB) *gorm.DB { return db.Order("position, id") }).
		Where("slug = ?", slug).Take(&t).Error
	if err != nil {
		return nil, notFound(err, fmt.Sprintf("template %q", slug))
	}
	return &t, nil
}

// TemplateInput is a template as an admin writes it.
type TemplateInput struct {
	Name        string                 `json:"name" validate:"required,max=100"`
	Description string                 `json:"description" validate:"max=2000"`
	Sections    []TemplateSectionInput `json:"sections" validate:"max=30,dive"`
}

// TemplateSectionInput is one section of a template as an admin writes it.
type TemplateSectionInput struct {
	Slug     string `json:"slug"`
	Heading  string `json:"heading" validate:"max=200"`
	Prompt   string `json:"prompt" validate:"max=2000"`
	Public   bool   `json:"public"`
	Required bool   `json:"required"`
}

var sectionSlugPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,39}$`)

// Slugify makes a slug from a heading: lower case letters and digits, words joined by "_".
func Slugify(heading string) string {
	var b strings.Builder
	gap := false
	for _, r := range strings.ToLower(heading) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if gap && b.Len() > 0 {
				b.WriteByte('_')
			}
			gap = false
			b.WriteRune(r)
		} else {
			gap = true
		}
		if b.Len() >= 40 {
			break
		}
	}
	return strings.TrimRight(b.String(), "_")
}

// ValidateTemplate checks a template: the fields, and sections with distinct, well-formed slugs
// (a missing slug is made from the heading).
func ValidateTemplate(in *TemplateInput) FieldErrors {
	in.Name = strings.TrimSpace(in.Name)
	errs := Validate(*in)
	seen := map[string]bool{}
	for n := range in.Sections {
		sec := &in.Sections[n]
		sec.Heading = strings.TrimSpace(sec.Heading)
		if sec.Slug == "" {
			sec.Slug = Slugify(sec.Heading)
		}
		field := fmt.Sprintf("sections[%d].heading", n)
		switch {
		case sec.Heading == "":
			if errs.For(field) == "" {
				errs.Add(field, "Give the section a heading.")
			}
		case !sectionSlugPattern.MatchString(sec.Slug):
			errs.Add(field, "Use letters or digits in the heading.")
		case seen[sec.Slug]:
			errs.Add(field, "Two sections have this heading; give each its own.")
		}
		seen[sec.Slug] = true
	}
	if len(in.Sections) == 0 && errs.For("sections") == "" {
		errs.Add("sections", "Add at least one section.")
	}
	return errs
}

// ErrTemplateExists is returned for a new template whose name makes the slug of another.
var ErrTemplateExists = errors.New("a template of that name exists")

// CreateTemplate stores an admin's template; the input must have passed ValidateTemplate.
func (s *Store) CreateTemplate(ctx context.Context, in TemplateInput) (*PostmortemTemplate, error) {
	slug := Slugify(in.Name)
	if slug == "" || BuiltinTemplate(slug) != nil {
		return nil, fmt.Errorf("template %q: %w", in.Name, ErrTemplateExists)
	}
	now := time.Now().UTC()
	t := PostmortemTemplate{Slug: slug, Name: in.Name, Description: in.Description, CreatedAt: now, UpdatedAt: now}
	for n, sec := range in.Sections {
		t.Sections = append(t.Sections, TemplateSection{Position: n + 1, Slug: sec.Slug, Heading: sec.Heading,
			Prompt: sec.Prompt, Public: sec.Public && !IsCoreSection(sec.Slug), Required: sec.Required})
	}
	err := s.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var n int64
		if err := tx.Model(&PostmortemTemplate{}).Where("slug = ?", slug).Count(&n).Error; err != nil {
			return fmt.Errorf("look for template %q: %w", slug, err)
		}
		if n > 0 {
			return fmt.Errorf("template %q: %w", slug, ErrTemplateExists)
		}
		if err := tx.Create(&t).Error; err != nil {
			return fmt.Errorf("insert template %q: %w", slug, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// DefaultTemplates maps each severity with a default template to that template's slug.
func (s *Store) DefaultTemplates(ctx context.Context) (map[string]string, error) {
	var rows []struct{ Severity, TemplateSlug string }
	if err := s.read.WithContext(ctx).Table("template_defaults").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("default templates: %w", err)
	}
	out := map[string]string{}
	for _, r := range rows {
		out[r.Severity] = r.TemplateSlug
	}
	return out, nil
}

// SetDefaultTemplates sets the default template of each severity named; an empty slug clears it.
// Every slug must name a template.
func (s *Store) SetDefaultTemplates(ctx context.Context, defaults map[string]string) error {
	for sev, slug := range defaults {
		if !slices.Contains(Severities, sev) {
			return fmt.Errorf("severity %q: %w", sev, ErrNotFound)
		}
		if slug != "" {
			if _, err := s.Template(ctx, slug); err != nil {
				return err
			}
		}
	}
	return s.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		for _, sev := range Severities {
			slug, ok := defaults[sev]
			if !ok {
				continue
			}
			if err := tx.Exec("DELETE FROM template_defaults WHERE severity = ?", sev).Error; err != nil {
				return fmt.Errorf("clear default template of %s: %w", sev, err)
			}
			if slug != "" {
				if err := tx.Exec("INSERT INTO template_defaults (severity, template_slug) VALUES (?, ?)", sev, slug).Error; err != nil {
					return fmt.Errorf("set default template of %s: %w", sev, err)
				}
			}
		}
		return nil
	})
}

// TemplateFor returns the template an incident follows: its own, else its severity's default,
// else nil (the incident's own sections only). A template since removed counts as none.
func (s *Store) TemplateFor(ctx context.Context, inc *Incident) (*PostmortemTemplate, error) {
	slug := inc.TemplateSlug
	if slug == "" {
		defaults, err := s.DefaultTemplates(ctx)
		if err != nil {
			return nil, err
		}
		slug = defaults[inc.Severity]
	}
	if slug == "" {
		return nil, nil
	}
	t, err := s.Template(ctx, slug)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	return t, err
}
