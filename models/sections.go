package models

import (
	"fmt"
	"strings"

	"gorm.io/gorm"
)

// IncidentSection is one of an incident's postmortem sections beyond its own six, written under a
// template: kept with the heading and public flag it was written under.
type IncidentSection struct {
	ID         int64  `json:"-"`
	IncidentID int64  `json:"-"`
	Position   int    `json:"-"`
	Slug       string `json:"slug"`
	Heading    string `json:"heading"`
	Body       string `json:"body"`
	Public     bool   `json:"public"`
}

// SectionInput is an extra section as a form, the API or an import writes it.
type SectionInput struct {
	Slug    string `json:"slug"`
	Heading string `json:"heading" validate:"required,max=200"`
	Body    string `json:"body" validate:"max=100000"`
	Public  bool   `json:"public"`
}

// MaxSections is how many extra sections an incident may carry.
const MaxSections = 30

// validateSections checks an incident's extra sections: headings, well-formed distinct slugs
// that are not the incident's own sections, and not too many.
func validateSections(sections []SectionInput) FieldErrors {
	var errs FieldErrors
	if len(sections) > MaxSections {
		errs.Add("sections", fmt.Sprintf("An incident carries at most %d extra sections.", MaxSections))
		return errs
	}
	seen := map[string]bool{}
	for n := range sections {
		sec := &sections[n]
		sec.Heading = strings.TrimSpace(sec.Heading)
		if sec.Slug == "" {
			sec.Slug = Slugify(sec.Heading)
		}
		prefix := "section-" + sec.Slug
		if !sectionSlugPattern.MatchString(sec.Slug) {
			prefix = fmt.Sprintf("sections[%d]", n)
		}
		for _, fe := range Validate(*sec) {
			errs.Add(prefix, lastPart(fe.Field)+": "+fe.Message)
		}
		switch {
		case !sectionSlugPattern.MatchString(sec.Slug):
			errs.Add(prefix, "A section's slug is lower-case letters, digits, - and _, up to 40.")
		case IsCoreSection(sec.Slug):
			errs.Add(prefix, "This is one of the incident's own sections; write it there.")
		case seen[sec.Slug]:
			errs.Add(prefix, "Two sections have this slug.")
		}
		seen[sec.Slug] = true
	}
	return errs
}

func lastPart(field string) string {
	if i := strings.LastIndexByte(field, '.'); i >= 0 {
		return field[i+1:]
	}
	return field
}

// replaceSections writes an incident's extra sections, when the input carries them and they
// differ, records the incident as changed so that every process reads them again, and says
// whether it wrote.
func replaceSections(tx *gorm.DB, c *changes, incidentID int64, sections *[]SectionInput) (bool, error) {
	if sections == nil {
		return false, nil
	}
	var before []IncidentSection
	if err := tx.Where("incident_id = ?", incidentID).Order("position, id").Find(&before).Error; err != nil {
		return false, fmt.Errorf("read sections of incident %d: %w", incidentID, err)
	}
	rows := make([]IncidentSection, 0, len(*sections))
	for n, in := range *sections {
		rows = append(rows, IncidentSection{IncidentID: incidentID, Position: n + 1, Slug: in.Slug,
			Heading: strings.TrimSpace(in.Heading), Body: in.Body, Public: in.Public})
	}
	if sectionsEqual(before, rows) {
		return false, nil
	}
	c.incident(incidentID)
	if err := tx.Where("incident_id = ?", incidentID).Delete(&IncidentSection{}).Error; err != nil {
		return false, fmt.Errorf("clear sections of incident %d: %w", incidentID, err)
	}
	if len(rows) > 0 {
		if err := tx.Create(&rows).Error; err != nil {
			return false, fmt.Errorf("write sections of incident %d: %w", incidentID, err)
		}
	}
	return true, audit(tx, ActionUpdate, EntityIncident, incidentID, incidentID, sectionFields(before), sectionFields(rows))
}

func sectionsEqual(a, b []IncidentSection) bool {
	if len(a) != len(b) {
		return false
	}
	for n := range a {
		if a[n].Slug != b[n].Slug || a[n].Heading != b[n].Heading || a[n].Body != b[n].Body || a[n].Public != b[n].Public {
			return false
		}
	}
	return true
}

// sectionFields names each section in the history as "section: <heading>".
func sectionFields(sections []IncidentSection) fields {
	out := fields{}
	for _, s := range sections {
		body := s.Body
		if s.Public {
			body = "(public) " + body
		}
		out["section: "+s.Heading] = body
	}
	return out
}

// SectionInputs turns stored sections back into input, as an edit or an import carries them.
func SectionInputs(sections []IncidentSection) []SectionInput {
	out := make([]SectionInput, 0, len(sections))
	for _, s := range sections {
		out = append(out, SectionInput{Slug: s.Slug, Heading: s.Heading, Body: s.Body, Public: s.Public})
	}
	return out
}

// Section returns the incident's extra section of a slug, or nil.
func (i *Incident) Section(slug string) *IncidentSection {
	for n := range i.Sections {
		if i.Sections[n].Slug == slug {
			return &i.Sections[n]
		}
	}
	return nil
}

// writeSections validates and writes the extra sections an incident input carries.
func writeSections(tx *gorm.DB, c *changes, incidentID int64, in IncidentInput) error {
	_, err := writeSectionsChanged(tx, c, incidentID, in)
	return err
}

// writeSectionsChanged is writeSections that says whether it wrote.
func writeSectionsChanged(tx *gorm.DB, c *changes, incidentID int64, in IncidentInput) (bool, error) {
	if in.Sections == nil {
		return false, nil
	}
	if errs := validateSections(*in.Sections); len(errs) > 0 {
		return false, fmt.Errorf("sections of incident %d: %w", incidentID, errs)
	}
	return replaceSections(tx, c, incidentID, in.Sections)
}

// MergeSections lays an incident's extra sections out under a template: the template's own extra
// sections first, in its order, with its headings and public flags and the text written so far,
// then the sections written under another template that have text, as they were.
func MergeSections(tpl *PostmortemTemplate, written []SectionInput) []SectionInput {
	out := []SectionInput{}
	taken := map[string]bool{}
	for _, ts := range tpl.Extra() {
		sec := SectionInput{Slug: ts.Slug, Heading: ts.Heading, Public: ts.Public}
		for _, w := range written {
			if w.Slug == ts.Slug {
				sec.Body = w.Body
			}
		}
		taken[ts.Slug] = true
		out = append(out, sec)
	}
	for _, w := range written {
		if !taken[w.Slug] && strings.TrimSpace(w.Body) != "" {
			taken[w.Slug] = true
			out = append(out, w)
		}
	}
	return out
}
