package web_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/mail"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
)

// The debrief's invitation goes to everyone invited through the outbox worker and a real SMTP
// server (aiosmtpd): one message each, with a text part and a text/calendar part of method
// REQUEST that python3-icalendar reads as the same meeting as the download.
func TestDebriefInvitationMail(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		server, smtp := subscriberApp(t, s)
		fran := server.account("Fran Facilitator", "responder")
		priya := server.account("Priya Raman", "viewer")
		path := fran.createIncident(seed000Form())
		check(t, "schedule", fran.post(path+"/debrief", url.Values{"starts_at": {"2026-03-16 15:00"}, "time_zone": {"UTC"}, "duration": {"60"},
			"facilitator": {itoa(fran.id)}, "participants": {itoa(priya.id)}}), http.StatusSeeOther, nil, nil)
		check(t, "viewers cannot mail it", priya.post(path+"/debrief/invite", nil), http.StatusForbidden, nil, nil)
		check(t, "mail it", fran.post(path+"/debrief/invite", nil), http.StatusSeeOther, nil, nil)
		msgs := smtp.WaitFor(t, ctx, 2)
		var to []string
		for _, m := range msgs {
			to = append(to, m.Header.Get("To"))
			if !strings.HasPrefix(m.Header.Get("Subject"), "Debrief: #") {
				t.Errorf("subject %q", m.Header.Get("Subject"))
			}
			text, calendar, method := invitationParts(t, m.Raw)
			if !strings.Contains(text, "You are invited to the debrief of incident") || method != "REQUEST" {
				t.Errorf("text %q, method %q", text, method)
			}
			event := parseICS(t, calendar)
			if event.Method != "REQUEST" || event.Start != "2026-03-16T15:00:00+00:00" || len(event.Attendees) != 2 {
				t.Errorf("mailed event = %+v", event)
			}
		}
		slices.Sort(to)
		if want := []string{fran.email, priya.email}; !slices.Equal(to, want) {
			t.Errorf("sent to %v, want %v", to, want)
		}
		waitInvitationsSent(t, s, path)
		check(t, "the page says they went", fran.get(path+"/debrief"), http.StatusOK, []string{"Invitations mailed (2)", "sent "}, nil)
	})
}

// invitationParts finds the text part and the text/calendar part of an invitation.
func invitationParts(t *testing.T, raw []byte) (text, calendar, method string) {
	t.Helper()
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	var walk func(contentType string, body io.Reader)
	walk = func(contentType string, body io.Reader) {
		media, params, err := mime.ParseMediaType(contentType)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(media, "multipart/") {
			r := multipart.NewReader(body, params["boundary"])
			for {
				p, err := r.NextRawPart()
				if err == io.EOF {
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				data, _ := io.ReadAll(p)
				if p.Header.Get("Content-Transfer-Encoding") == "base64" {
					data, err = base64.StdEncoding.DecodeString(strings.ReplaceAll(string(data), "\r\n", ""))
					if err != nil {
						t.Fatal(err)
					}
				}
				walk(p.Header.Get("Content-Type"), bytes.NewReader(data))
			}
		}
		data, _ := io.ReadAll(body)
		switch media {
		case "text/plain":
			text = string(data)
		case "text/calendar":
			calendar, method = string(data), params["method"]
		}
	}
	walk(m.Header.Get("Content-Type"), m.Body)
	return text, calendar, method
}

// waitInvitationsSent waits until the worker has recorded every invitation of the incident sent.
func waitInvitationsSent(t *testing.T, s *models.Store, path string) {
	t.Helper()
	id := int64(0)
	for _, c := range strings.TrimPrefix(path, "/incidents/") {
		id = id*10 + int64(c-'0')
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		invs, err := s.InvitationsOf(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		sent := 0
		for _, inv := range invs {
			if inv.SentAt != nil {
				sent++
			}
		}
		if len(invs) > 0 && sent == len(invs) {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("invitations not recorded sent: %+v", invs)
		case <-time.After(10 * time.Millisecond): // polls a worker the test does not drive
		}
	}
}
