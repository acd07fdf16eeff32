package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"hindsight/models"
	"hindsight/models/storetest"
	"hindsight/web"
)

// TestTemplateSectionsInBrowser: an incident following the Google SRE template shows its "What
// went well" section on the edit page with the template's prompt beside it; Preview renders the
// typed Markdown through the server's sanitiser in place (htmx), without leaving the page or
// saving. With HINDSIGHT_SCREENSHOTS set, the edit and postmortem pages are photographed at
// desktop and phone widths, light and dark.
func TestTemplateSectionsInBrowser(t *testing.T) {
	ctx := browser(t)
	store := storetest.SQLite(t)
	bg := context.Background()
	if _, err := store.CreateUser(bg, models.UserInput{Email: "responder@example.com", Role: models.RoleAdmin, Password: testPassword}); err != nil {
		t.Fatal(err)
	}
	start := time.Date(2022, 4, 5, 7, 0, 0, 0, time.UTC)
	sections := []models.SectionInput{{Slug: "went_wrong", Heading: "What went wrong", Public: true,
		Body: "Our own Health Checks also began to exacerbate the problem."}}
	inc, err := store.CreateIncident(bg, models.IncidentInput{
		Title: "R&R Platform Performance Issues", Severity: "sev2", Status: "resolved", TimeZone: "Europe/London",
		PostmortemState: "in_review", Public: true, Template: "google-sre", Sections: &sections,
		Summary:    "Users of the R&R platform began to experience significantly degraded performance.",
		RootCause:  "Unfortunately, human error resulted in this change being deployed for all customers.",
		Milestones: models.Milestones{StartedAt: &start},
	}, models.Children{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(web.New(web.Deps{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	t.Cleanup(srv.Close)
	signIn(t, ctx, srv)
	base := "/incidents/" + itoa(inc.ID)

	steps(t, ctx, "edit form", chromedp.Navigate(srv.URL+base+"/edit"), chromedp.WaitVisible(chromedp.ID("section-went_well")))
	if got := text(t, ctx, "#section-went_well-prompt"); !strings.Contains(got, "What helped") {
		t.Errorf("the went-well prompt says %q", got)
	}
	steps(t, ctx, "preview",
		chromedp.SetValue(chromedp.ID("section-went_well"), "Scheduled emails went out **as normal**. <script>document.title='x'</script>"),
		chromedp.Click(chromedp.CSS("#section-went_well-section .preview-actions button")),
		chromedp.WaitVisible(chromedp.CSS("#section-went_well-preview strong")),
	)
	if got := text(t, ctx, "#section-went_well-preview strong"); got != "as normal" {
		t.Errorf("the preview's bold text is %q", got)
	}
	state, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname + "|" + document.title + "|" +
		document.querySelectorAll("#section-went_well-preview script").length + "|" + document.getElementById("section-went_well").value.length`))
	if err != nil {
		t.Fatal(err)
	}
	if parts := strings.Split(state, "|"); parts[0] != base+"/edit" || parts[1] == "x" || parts[2] != "0" || parts[3] == "0" {
		t.Errorf("after the preview: path|title|scripts|typed = %q; want the edit page, untouched, with no script", state)
	}
	if got, err := store.GetIncident(bg, inc.ID); err != nil || got.Section("went_well") != nil {
		t.Errorf("the preview saved something: %v", err)
	}
	steps(t, ctx, "postmortem page", chromedp.Navigate(srv.URL+base+"/postmortem"), chromedp.WaitVisible(chromedp.ID("completeness")))
	if got := text(t, ctx, "#completeness"); !strings.Contains(got, "No detection time") || !strings.Contains(got, "What went well") {
		t.Errorf("the completeness check says %q", got)
	}

	dir := os.Getenv("HINDSIGHT_SCREENSHOTS")
	if dir == "" {
		return
	}
	for name, path := range map[string]string{"review-edit": base + "/edit", "review-publish": base + "/postmortem"} {
		for _, width := range []int64{1280, 390} {
			for _, scheme := range []string{"light", "dark"} {
				file := filepath.Join(dir, name+"-"+scheme+"-"+itoa(width)+".png")
				steps(t, ctx, "screenshot "+file,
					chromedp.EmulateViewport(width, 900),
					chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
						_, err := cdp.Call(ctx, target, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
							Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
						})
						return err
					}),
					chromedp.Navigate(srv.URL+path),
					chromedp.WaitVisible(chromedp.CSS("main")),
				)
				png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, png, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}
