package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"hindsight/models"
)

// TestBrowserDeleteAsksAndUndoes deletes in Chromium: each Delete asks in a dialog first (Cancel
// keeps the record), a deleted timeline entry comes back with Undo, the no-script confirmation
// page deletes a window, and a deleted incident lands on the page that says it is in the Trash.
func TestBrowserDeleteAsksAndUndoes(t *testing.T) {
	ctx := browser(t)
	srv, store := liveServerStore(t)
	inc := publicIncident(t, store)
	if _, err := store.CreateWindow(context.Background(), inc.ID, models.WindowInput{StartedAt: time.Date(2026, 3, 9, 16, 0, 0, 0, time.UTC), Level: "degraded", Note: "p99 5 s"}); err != nil {
		t.Fatal(err)
	}
	signIn(t, ctx, srv)
	path := fmt.Sprintf("%s/incidents/%d", srv.URL, inc.ID)
	entry := fmt.Sprintf("#event-%d", inc.Timeline[0].ID)

	steps(t, ctx, "ask, then cancel",
		chromedp.Navigate(path), chromedp.WaitVisible(chromedp.CSS(entry)),
		chromedp.Click(chromedp.CSS(entry+" a.delete-link")),
		chromedp.WaitVisible(chromedp.ID("confirm-dialog")),
	)
	if got := text(t, ctx, "#confirm-dialog h2"); got != "Delete this timeline entry?" {
		t.Errorf("dialog asks %q", got)
	}
	if got := evaluate[string](t, ctx, `document.activeElement.textContent`); got != "Cancel, keep it" {
		t.Errorf("the dialog opens with the focus on %q, want Cancel", got)
	}
	steps(t, ctx, "cancel", chromedp.Click(chromedp.CSS("#confirm-dialog .cancel")), chromedp.WaitNotVisible(chromedp.ID("confirm-dialog")))
	if !strings.HasSuffix(evaluate[string](t, ctx, `location.pathname`), fmt.Sprintf("/incidents/%d", inc.ID)) || !visible(t, ctx, entry) {
		t.Fatal("Cancel did not keep the entry on the page")
	}

	steps(t, ctx, "delete, then undo",
		chromedp.Click(chromedp.CSS(entry+" a.delete-link")),
		chromedp.WaitVisible(chromedp.ID("confirm-dialog")),
		chromedp.Click(chromedp.CSS("#confirm-dialog button.danger")),
		chromedp.WaitVisible(chromedp.ID("notice")),
	)
	if got := text(t, ctx, "#notice"); !strings.Contains(got, "Deleted the timeline entry of 2026-03-12 16:39 UTC.") {
		t.Errorf("notice = %q", got)
	}
	if evaluate[bool](t, ctx, fmt.Sprintf(`!!document.querySelector(%q)`, entry)) {
		t.Fatal("the entry is still on the page after the delete")
	}
	steps(t, ctx, "undo", chromedp.Click(chromedp.CSS("#notice button")), chromedp.WaitVisible(chromedp.CSS(entry)))
	if got := text(t, ctx, entry); !strings.Contains(got, "Looking into slow responses in Canada.") || !strings.Contains(got, "Public") {
		t.Errorf("the entry came back as %q", got)
	}

	steps(t, ctx, "the confirmation page deletes a window",
		chromedp.Navigate(fmt.Sprintf("%s/windows/%d/delete", path, 1)),
		chromedp.WaitVisible(chromedp.ID("confirm-delete")),
		chromedp.Click(chromedp.ID("confirm-delete")),
		chromedp.WaitVisible(chromedp.ID("notice")),
	)
	if got := text(t, ctx, "#notice"); !strings.Contains(got, "Deleted the Degraded window") {
		t.Errorf("notice = %q", got)
	}

	steps(t, ctx, "delete the incident",
		chromedp.Navigate(path), chromedp.WaitVisible(chromedp.CSS(".head-actions a.danger")),
		chromedp.Click(chromedp.CSS(".head-actions a.danger")),
		chromedp.WaitVisible(chromedp.ID("confirm-dialog")),
	)
	if got := text(t, ctx, "#confirm-dialog .confirm-detail"); !strings.Contains(got, "Trash") {
		t.Errorf("the incident's dialog says %q", got)
	}
	steps(t, ctx, "confirm", chromedp.Click(chromedp.CSS("#confirm-dialog button.danger")), chromedp.WaitVisible(chromedp.CSS(".confirm-page .alert")))
	if got := text(t, ctx, "h1"); got != fmt.Sprintf("Deleted incident #%d", inc.ID) {
		t.Errorf("after the delete the page says %q", got)
	}
	if got := text(t, ctx, ".confirm-page .alert"); !strings.Contains(got, "is in the Trash") {
		t.Errorf("deleted page = %q", got)
	}
}
