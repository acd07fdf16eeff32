package web_test

import (
	"context"
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

// TestScreenshotsOfDeletesAndTimeline photographs what asks before a delete, the Undo notice, the
// Trash, and the timeline form's public line, at desktop and phone widths, light and dark, into
// HINDSIGHT_SCREENSHOTS; without it, it skips.
func TestScreenshotsOfDeletesAndTimeline(t *testing.T) {
	dir := os.Getenv("HINDSIGHT_SCREENSHOTS")
	if dir == "" {
		t.Skip("set HINDSIGHT_SCREENSHOTS to a folder to take screenshots")
	}
	ctx := browser(t)
	store := storetest.SQLite(t)
	bg := context.Background()
	if _, err := store.CreateUser(bg, models.UserInput{Email: "responder@example.com", Role: models.RoleAdmin, Password: testPassword}); err != nil {
		t.Fatal(err)
	}
	if _, err := demo.Load(bg, store); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(web.New(web.Deps{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	t.Cleanup(srv.Close)
	signIn(t, ctx, srv)
	inc, err := store.GetIncident(bg, 1)
	if err != nil {
		t.Fatal(err)
	}
	steps(t, ctx, "delete incident 2", chromedp.Navigate(srv.URL+"/incidents/2/delete"), chromedp.WaitVisible(chromedp.ID("confirm-delete")),
		chromedp.Click(chromedp.ID("confirm-delete")), chromedp.WaitVisible(chromedp.CSS(".confirm-page .alert")))

	shots := []struct {
		name, path string
		then       []chromedp.Action[chromedp.Void]
	}{
		{"timeline-form", "/incidents/1", []chromedp.Action[chromedp.Void]{
			chromedp.Click(chromedp.CSS("#timeline details.add summary")), chromedp.Click(chromedp.ID("ev-new-public")),
			chromedp.ScrollIntoView(chromedp.ID("timeline")),
		}},
		{"confirm-event", "/incidents/1/events/" + itoa(inc.Timeline[0].ID) + "/delete", nil},
		{"confirm-incident", "/incidents/1/delete", nil},
		{"dialog", "/incidents/1", []chromedp.Action[chromedp.Void]{
			chromedp.Click(chromedp.CSS(".head-actions a.danger")), chromedp.WaitVisible(chromedp.ID("confirm-dialog")),
		}},
		{"trash", "/admin/trash", nil},
		{"deleted", "/incidents/2/deleted", nil},
	}
	for _, shot := range shots {
		for _, width := range []int64{1280, 390} {
			for _, scheme := range []string{"light", "dark"} {
				file := filepath.Join(dir, shot.name+"-"+scheme+"-"+itoa(width)+".png")
				actions := []chromedp.Action[chromedp.Void]{
					chromedp.EmulateViewport(width, 900),
					chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
						_, err := cdp.Call(ctx, target, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
							Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
						})
						return err
					}),
					chromedp.Navigate(srv.URL + shot.path),
					chromedp.WaitVisible(chromedp.CSS("main")),
				}
				steps(t, ctx, "open "+file, append(actions, shot.then...)...)
				png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, png, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	// The Undo notice, after deleting a follow-up.
	steps(t, ctx, "delete a follow-up", chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(srv.URL+"/incidents/1/follow-ups/"+itoa(inc.FollowUps[0].ID)+"/delete"), chromedp.WaitVisible(chromedp.ID("confirm-delete")),
		chromedp.Click(chromedp.ID("confirm-delete")), chromedp.WaitVisible(chromedp.ID("notice")))
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "undo-notice-light-1280.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}
