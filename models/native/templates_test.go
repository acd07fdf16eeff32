package native_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/native"
	"hindsight/models/storetest"
)

// An admin's template, the severities' defaults, and an incident's near-miss flag, template and
// extra sections go through a backup and come back the same, byte for byte, on both databases.
func TestNativeRoundTripsTemplates(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		in := models.TemplateInput{Name: "Security review", Description: "For leaks.", Sections: []models.TemplateSectionInput{
			{Heading: "Root cause", Prompt: "Which conditions?", Required: true},
			{Heading: "Exposure", Prompt: "Who could read what?", Public: true, Required: true},
		}}
		if errs := models.ValidateTemplate(&in); len(errs) > 0 {
			t.Fatal(errs)
		}
		if _, err := s.CreateTemplate(ctx, in); err != nil {
			t.Fatal(err)
		}
		if err := s.SetDefaultTemplates(ctx, map[string]string{"sev1": "security_review", "sev3": "lightweight"}); err != nil {
			t.Fatal(err)
		}
		start := time.Date(2026, 3, 17, 4, 0, 0, 0, time.UTC)
		sections := []models.SectionInput{{Slug: "exposure", Heading: "Exposure", Body: "No customer data was readable.", Public: true}}
		if _, err := s.CreateIncident(ctx, models.IncidentInput{Title: "Token in a CI log", Severity: "sev1", Status: "resolved", TimeZone: "UTC",
			PostmortemState: "draft", NearMiss: true, Template: "security_review", Sections: &sections,
			Milestones: models.Milestones{StartedAt: &start}}, models.Children{}); err != nil {
			t.Fatal(err)
		}
		first := export(t, s)
		for _, want := range []string{`"templates": [`, `"slug": "security_review"`, `"prompt": "Who could read what?"`,
			`"severity": "sev3",`, `"template": "lightweight"`, `"near_miss": true`, `"template": "security_review"`,
			`"body": "No customer data was readable."`} {
			if !bytes.Contains(first, []byte(want)) {
				t.Errorf("export lacks %s", want)
			}
		}
		target := empty(t, s.Dialect())
		if _, err := native.Import(ctx, target, bytes.NewReader(first), "backup.json"); err != nil {
			t.Fatal(err)
		}
		if second := export(t, target); !bytes.Equal(first, second) {
			t.Fatalf("round trip differs at byte %d:\n%s", firstDifference(first, second), around(second, firstDifference(first, second)))
		}
		tpl, err := target.Template(ctx, "security_review")
		if err != nil || len(tpl.Sections) != 2 || !tpl.Sections[1].Public || tpl.Sections[1].Prompt != "Who could read what?" {
			t.Errorf("restored template = %+v, %v", tpl, err)
		}
	})
}
