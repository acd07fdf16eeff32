package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"hindsight/handlers"
	"hindsight/models"
	"hindsight/models/notify"
	"hindsight/models/notify/smtptest"
	"hindsight/models/storetest"
	"hindsight/web"
)

var confirmPath = regexp.MustCompile(`http://example\.com(/status/subscriptions/[A-Za-z0-9_-]+/confirm)`)

// subscriberApp is a server on s with an outbox worker sending through a real aiosmtpd.
func subscriberApp(t *testing.T, s *models.Store) (*app, *smtptest.Server) {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	smtp := smtptest.Start(t, "")
	mailer, err := notify.ParseSMTPURL("smtp://" + smtp.Addr)
	if err != nil {
		t.Fatal(err)
	}
	w := notify.NewWorker(s, log, notify.Config{Mailer: mailer, From: "status@example.com", BaseURL: "http://example.com", Backoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	jar, _ := cookiejar.New(nil)
	e := web.New(web.Deps{Store: s, Log: log, BaseURL: "http://example.com", Mail: handlersMail(smtp.Addr)})
	return &app{t: t, e: e, store: s, jar: jar}, smtp
}

// TestSubscribeThroughTheStatusPage subscribes on the public form, follows the confirmation
// link from the mail that arrived, receives a public update and unsubscribes with the one-click
// POST of its List-Unsubscribe header, as a mailbox provider sends it: no cookie, no CSRF token.
func TestSubscribeThroughTheStatusPage(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		visitor, smtp := subscriberApp(t, s)
		check(t, "status page links to the form", visitor.get("/status"), http.StatusOK, []string{`href="/status/subscribe"`}, nil)
		check(t, "form", visitor.get("/status/subscribe"), http.StatusOK, []string{`name="email"`, `name="webhook_url"`, `name="csrf_token"`}, nil)

		check(t, "no CSRF token", visitor.postRaw("/status/subscribe", url.Values{"email": {"reader@example.com"}}), http.StatusForbidden, nil, nil)
		check(t, "bad address", visitor.post("/status/subscribe", url.Values{"email": {"not an address"}}), http.StatusUnprocessableEntity,
			[]string{`id="email-error"`, "Enter an email address like name@example.com."}, nil)

		sent := "a message with a confirmation link is on its way"
		check(t, "subscribe", visitor.post("/status/subscribe", url.Values{"email": {"reader@example.com"}}), http.StatusOK, []string{sent}, nil)
		msgs := smtp.WaitFor(t, ctx, 1)
		link := confirmPath.FindStringSubmatch(msgs[0].Body)
		if link == nil {
			t.Fatalf("no confirm link in %q", msgs[0].Body)
		}
		// Opening the link changes nothing (mail scanners open links); the button confirms.
		check(t, "confirm page", visitor.anonymous().get(link[1]), http.StatusOK, []string{"Confirm your subscription", "reader@example.com"}, nil)
		if c, _ := s.SubscriberCounts(ctx); c.Pending != 1 || c.Email != 0 {
			t.Fatalf("opening the link confirmed: %+v", c)
		}
		check(t, "confirm", visitor.anonymous().postRaw(link[1], url.Values{}), http.StatusOK, []string{"Subscribed"}, nil)

		// Asking again for a confirmed address answers the same, changes nothing and says so by mail only.
		other := visitor.anonymous()
		other.get("/status/subscribe")
		check(t, "subscribe again", other.post("/status/subscribe", url.Values{"email": {"reader@example.com"}}), http.StatusOK, []string{sent}, nil)
		msgs = smtp.WaitFor(t, ctx, 2)
		if got := msgs[1].Header.Get("Subject"); got != "Status: you are already subscribed" {
			t.Errorf("second request's mail %q", got)
		}

		admin := (&app{t: t, e: visitor.e, store: s, jar: mustJar()}).as(models.RoleAdmin)
		check(t, "admin counts", admin.get("/admin/subscribers"), http.StatusOK, []string{`<dd id="count-email">1</dd>`, `<dd id="count-pending">0</dd>`, "Sent through " + smtp.Addr}, nil)
		check(t, "viewers may not see them", admin.as(models.RoleViewer).get("/admin/subscribers"), http.StatusForbidden, nil, nil)

		inc := publicIncidentIn(t, s)
		if _, err := s.CreateEvent(ctx, inc, models.EventInput{At: time.Now().UTC(), Kind: "status_update", Status: "identified", Body: "Found it.", Public: true}); err != nil {
			t.Fatal(err)
		}
		msgs = smtp.WaitFor(t, ctx, 3)
		unsubscribe := strings.Trim(msgs[2].Header.Get("List-Unsubscribe"), "<>")
		u, err := url.Parse(unsubscribe)
		if err != nil || !strings.HasPrefix(u.Path, "/status/unsubscribe/") || msgs[2].Header.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" {
			t.Fatalf("List-Unsubscribe %q, List-Unsubscribe-Post %q", unsubscribe, msgs[2].Header.Get("List-Unsubscribe-Post"))
		}
		check(t, "unsubscribe page", visitor.anonymous().get(u.Path), http.StatusOK, []string{"Stop sending status updates to reader@example.com?"}, nil)
		oneClick := visitor.anonymous().doWith(http.MethodPost, u.Path, url.Values{"List-Unsubscribe": {"One-Click"}}, nil)
		check(t, "one-click unsubscribe", oneClick, http.StatusOK, []string{"Unsubscribed"}, nil)
		if c, _ := s.SubscriberCounts(ctx); c.Email != 0 {
			t.Fatalf("still subscribed after the one-click POST: %+v", c)
		}
		check(t, "link after unsubscribing", visitor.anonymous().get(u.Path), http.StatusOK, []string{"not subscribed"}, nil)
	})
}

// TestSubscribeFormCannotFloodAnInbox asks for the same address more often than the limit: the
// answer never changes, and past the limit no more mail goes to it.
func TestSubscribeFormCannotFloodAnInbox(t *testing.T) {
	s := storetest.SQLite(t)
	ctx := context.Background()
	visitor, smtp := subscriberApp(t, s)
	visitor.get("/status/subscribe")
	for range models.SubscribeAddressLimit + 2 {
		check(t, "subscribe", visitor.post("/status/subscribe", url.Values{"email": {"victim@example.com"}}), http.StatusOK,
			[]string{"a message with a confirmation link is on its way"}, nil)
	}
	smtp.WaitFor(t, ctx, models.SubscribeAddressLimit)
	waitOutboxEmpty(t, s)
	if n := len(smtp.Messages(t)); n != models.SubscribeAddressLimit {
		t.Errorf("%d mails reached the address, want at most %d", n, models.SubscribeAddressLimit)
	}
}

func waitOutboxEmpty(t *testing.T, s *models.Store) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := s.SubscriberCounts(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if c.Queued == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("outbox not empty: %+v", c)
		}
		<-time.After(10 * time.Millisecond)
	}
}

func mustJar() http.CookieJar {
	jar, _ := cookiejar.New(nil)
	return jar
}

func publicIncidentIn(t *testing.T, s *models.Store) int64 {
	t.Helper()
	inc, err := s.CreateIncident(context.Background(), models.IncidentInput{
		Title: "Login failures", Severity: "sev2", Status: "identified", TimeZone: "UTC", PostmortemState: "draft", Public: true, Services: []string{"Login"},
	}, models.Children{})
	if err != nil {
		t.Fatal(err)
	}
	return inc.ID
}

func handlersMail(addr string) handlers.MailInfo {
	return handlers.MailInfo{SMTP: addr, From: "status@example.com"}
}
