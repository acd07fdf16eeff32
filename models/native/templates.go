package native

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"hindsight/models"
)

// exportTemplates lists the templates admins wrote and the default template of each severity.
func exportTemplates(ctx context.Context, store *models.Store) ([]template, []templateDefault, error) {
	all, err := store.Templates(ctx)
	if err != nil {
		return nil, nil, err
	}
	out := []template{}
	for _, t := range all {
		if t.Builtin() {
			continue
		}
		row := template{Slug: t.Slug, Name: t.Name, Description: t.Description, CreatedAt: instant(t.CreatedAt),
			UpdatedAt: instant(t.UpdatedAt), Sections: []templateSection{}}
		for _, sec := range t.Sections {
			row.Sections = append(row.Sections, templateSection{sec.Slug, sec.Heading, sec.Prompt, sec.Public, sec.Required})
		}
		out = append(out, row)
	}
	slices.SortFunc(out, func(a, b template) int { return cmpString(a.Slug, b.Slug) })
	defaults, err := store.DefaultTemplates(ctx)
	if err != nil {
		return nil, nil, err
	}
	rows := []templateDefault{}
	for _, sev := range models.Severities {
		if slug, ok := defaults[sev]; ok {
			rows = append(rows, templateDefault{sev, slug})
		}
	}
	return out, rows, nil
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// decodeTemplates reads the templates, checked with the rules the admin's form uses.
func decodeTemplates(dec *json.Decoder, snap *models.Snapshot) error {
	var rows []template
	if err := dec.Decode(&rows); err != nil {
		return err
	}
	for n, row := range rows {
		in := models.TemplateInput{Name: row.Name, Description: row.Description}
		for _, sec := range row.Sections {
			in.Sections = append(in.Sections, models.TemplateSectionInput{Slug: sec.Slug, Heading: sec.Heading, Prompt: sec.Prompt, Public: sec.Public, Required: sec.Required})
		}
		if errs := models.ValidateTemplate(&in); len(errs) > 0 {
			return fmt.Errorf("templates[%d] (%s): %w", n, row.Slug, errs)
		}
		t := models.PostmortemTemplate{Slug: row.Slug, Name: row.Name, Description: row.Description, CreatedAt: row.CreatedAt, UpdatedAt: row.UpdatedAt}
		for k, sec := range in.Sections {
			t.Sections = append(t.Sections, models.TemplateSection{Position: k + 1, Slug: sec.Slug, Heading: sec.Heading, Prompt: sec.Prompt, Public: sec.Public, Required: sec.Required})
		}
		snap.Templates = append(snap.Templates, t)
	}
	return nil
}

func decodeTemplateDefaults(dec *json.Decoder, snap *models.Snapshot) error {
	var rows []templateDefault
	if err := dec.Decode(&rows); err != nil {
		return err
	}
	snap.TemplateDefaults = map[string]string{}
	for _, r := range rows {
		if !slices.Contains(models.Severities, r.Severity) {
			return fmt.Errorf("severity %q is not one of %v", r.Severity, models.Severities)
		}
		snap.TemplateDefaults[r.Severity] = r.Template
	}
	return nil
}

func sectionInputs(sections []models.IncidentSection) *[]models.SectionInput {
	if len(sections) == 0 {
		return nil
	}
	in := models.SectionInputs(sections)
	return &in
}
