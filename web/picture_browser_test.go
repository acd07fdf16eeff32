package web_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"hindsight/models"
	"hindsight/models/demo"
	"hindsight/models/storetest"
	"hindsight/web"
)

// pictureMeasure is what the browser drew of an incident's picture, in CSS pixels.
type pictureMeasure struct {
	Bar struct {
		Width    float64
		Segments []struct {
			Class   string
			Seconds float64
			Width   float64
			Left    float64
		}
	}
	Phases []struct {
		Phase string
		Width float64
	}
	Labels []struct {
		Text                     string
		LineX, LineTop           float64
		Left, Right, Top, Bottom float64
	}
}

const measurePicture = `(() => {
	const out = {Bar: {Width: 0, Segments: []}, Phases: [], Labels: []};
	const bar = document.querySelector("svg.scale-bar");
	if (bar) {
		const b = bar.getBoundingClientRect();
		out.Bar.Width = b.width;
		for (const r of bar.querySelectorAll("rect.segment")) {
			const box = r.getBoundingClientRect();
			out.Bar.Segments.push({Class: r.getAttribute("class"), Seconds: +r.dataset.seconds, Width: box.width, Left: box.left - b.left});
		}
	}
	for (const r of document.querySelectorAll("svg.picture rect.phase")) {
		out.Phases.push({Phase: r.getAttribute("class").replace("phase ", ""), Width: r.getBoundingClientRect().width});
	}
	for (const g of document.querySelectorAll("svg.picture g.milestone")) {
		const line = g.querySelector("line").getBoundingClientRect();
		const text = g.querySelector("text").getBoundingClientRect();
		out.Labels.push({Text: g.querySelector("text").textContent, LineX: line.left + line.width / 2, LineTop: line.top,
			Left: text.left, Right: text.right, Top: text.top, Bottom: text.bottom});
	}
	return out;
})()`

// TestBrowserPictureOfEverySeed loads the five seeds' incident pages in Chromium and measures what
// it drew: the to-scale bar's segments are their share of the whole within a pixel; in the
// detailed picture a longer phase is never narrower than a shorter one; and each milestone's
// label starts just right of its own line, crossed by no other milestone's line. With
// HINDSIGHT_SCREENSHOTS set it photographs each page at 1280 and 390 px, light and dark.
func TestBrowserPictureOfEverySeed(t *testing.T) {
	ctx := browser(t)
	store := storetest.SQLite(t)
	if _, err := store.CreateUser(context.Background(), models.UserInput{Email: "responder@example.com", Role: models.RoleResponder, Password: testPassword}); err != nil {
		t.Fatal(err)
	}
	if _, err := demo.Load(context.Background(), store); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(web.New(web.Deps{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	t.Cleanup(srv.Close)
	steps(t, ctx, "sign in",
		chromedp.Navigate(srv.URL+"/incidents"),
		chromedp.WaitVisible(chromedp.ID("email")),
		chromedp.SendKeys(chromedp.ID("email"), "responder@example.com"),
		chromedp.SendKeys(chromedp.ID("password"), testPassword),
		chromedp.Click(chromedp.CSS(`form button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`form[action="/logout"]`)),
	)
	for id := 1; id <= len(demo.Incidents()); id++ {
		path := fmt.Sprintf("/incidents/%d", id)
		steps(t, ctx, "open "+path, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(srv.URL+path), chromedp.WaitVisible(chromedp.CSS("svg.scale-bar")))
		m, err := chromedp.Run(ctx, chromedp.Evaluate[pictureMeasure](measurePicture))
		if err != nil {
			t.Fatal(err)
		}
		var total float64
		for _, s := range m.Bar.Segments {
			total += s.Seconds
		}
		if len(m.Bar.Segments) == 0 || m.Bar.Width < 600 {
			t.Fatalf("%s: no to-scale bar drawn: %+v", path, m.Bar)
		}
		seconds := map[string]float64{}
		covered := 0.0
		for _, s := range m.Bar.Segments {
			if want := m.Bar.Width * s.Seconds / total; s.Width < want-1 || s.Width > want+1 {
				t.Errorf("%s: %s is %.1f px of the %.0f px bar, want %.1f", path, s.Class, s.Width, m.Bar.Width, want)
			}
			if s.Left < covered-1 || s.Left > covered+1 {
				t.Errorf("%s: %s starts at %.1f px, want %.1f", path, s.Class, s.Left, covered)
			}
			covered += s.Width
			seconds[s.Class[len("segment "):]] = s.Seconds
		}
		for _, long := range m.Phases {
			for _, short := range m.Phases {
				if seconds[long.Phase] > seconds[short.Phase] && long.Width < short.Width-0.5 {
					t.Errorf("%s: %s (%.0f s) drawn %.1f px, narrower than %s (%.0f s) at %.1f px", path, long.Phase, seconds[long.Phase], long.Width, short.Phase, seconds[short.Phase], short.Width)
				}
			}
		}
		for n, l := range m.Labels {
			if l.Left < l.LineX || l.Left > l.LineX+10 {
				t.Errorf("%s: label %q starts at %.1f px, not just right of its line at %.1f", path, l.Text, l.Left, l.LineX)
			}
			for k, other := range m.Labels {
				if k != n && other.LineX > l.Left && other.LineX < l.Right && other.LineTop < l.Bottom {
					t.Errorf("%s: the line of %q runs through the label %q", path, other.Text, l.Text)
				}
			}
		}
		if dir := os.Getenv("HINDSIGHT_SCREENSHOTS"); dir != "" {
			for _, width := range []int64{1280, 390} {
				for _, scheme := range []string{"light", "dark"} {
					steps(t, ctx, "screenshot",
						chromedp.EmulateViewport(width, 900),
						chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
							_, err := cdp.Call(ctx, target, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
								Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
							})
							return err
						}),
						chromedp.Navigate(srv.URL+path+"#picture"),
						chromedp.WaitVisible(chromedp.CSS("svg.scale-bar")),
					)
					png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
					if err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("picture-%d-%s-%d.png", id, scheme, width)), png, 0o644); err != nil {
						t.Fatal(err)
					}
					section, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS("#picture")))
					if err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("picture-%d-%s-%d-section.png", id, scheme, width)), section, 0o644); err != nil {
						t.Fatal(err)
					}
					figures, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(`section[aria-labelledby="figures-h"]`)))
					if err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("figures-%d-%s-%d.png", id, scheme, width)), figures, 0o644); err != nil {
						t.Fatal(err)
					}
					if id == 1 {
						steps(t, ctx, "open the follow-up form", chromedp.Click(chromedp.CSS(`#follow-ups details.add > summary`)), chromedp.WaitVisible(chromedp.CSS(`#fu-new-done_at`)))
						form, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(`#follow-ups details.add`)))
						if err != nil {
							t.Fatal(err)
						}
						if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("follow-up-form-%s-%d.png", scheme, width)), form, 0o644); err != nil {
							t.Fatal(err)
						}
						steps(t, ctx, "open the edit form", chromedp.Navigate(srv.URL+path+"/edit"), chromedp.WaitVisible(chromedp.CSS(`.milestones`)))
						milestones, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(`.milestones`)))
						if err != nil {
							t.Fatal(err)
						}
						if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("milestones-form-%s-%d.png", scheme, width)), milestones, 0o644); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
		}
	}
}
