package notify

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"strings"
	"time"

	"hindsight/models"
)

// sendInvitations sends the debrief invitations that are due, through the same mailer as the
// subscribers' mail, retrying failures with the same backoff.
func (w *Worker) sendInvitations(ctx context.Context) error {
	claimCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	items, err := w.store.ClaimInvitations(claimCtx, claimBatch, claimLease)
	cancel()
	if err != nil {
		return err
	}
	for _, inv := range items {
		sendErr := models.Safely(func() error {
			if w.cfg.Mailer == nil {
				return errors.New("no SMTP server is configured (--smtp-url)")
			}
			return w.cfg.Mailer.Send(w.cfg.From, inv.Address, InvitationMessage(w.cfg.From, inv))
		})
		record, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		if sendErr == nil {
			err = w.store.InvitationSent(record, inv.ID)
		} else {
			var retryAt *time.Time
			var permanent *permanentError
			if !errors.As(sendErr, &permanent) && inv.Attempts+1 < w.cfg.MaxAttempts {
				at := time.Now().Add(w.backoff(inv.Attempts))
				retryAt = &at
			}
			w.log.Warn("debrief invitation failed", "invitation", inv.ID, "attempt", inv.Attempts+1, "retry", retryAt != nil, "err", sendErr)
			err = w.store.InvitationFailed(record, inv.ID, inv.Attempts+1, retryAt, sendErr.Error())
		}
		cancel()
		if err != nil {
			return err
		}
	}
	return nil
}

// InvitationMessage formats an invitation as mail clients expect a meeting request (RFC 6047,
// iMIP): a text part for people, and the iCalendar object as a text/calendar part with
// method=REQUEST, which clients offer to accept; the same object is attached as invite.ics for
// those that only read attachments.
func InvitationMessage(from string, inv models.Invitation) []byte {
	var b bytes.Buffer
	header := func(name, value string) { b.WriteString(name + ": " + value + "\r\n") }
	boundary := fmt.Sprintf("hindsight-invitation-%d-%d", inv.ID, inv.CreatedAt.UnixNano())
	header("From", from)
	header("To", inv.Address)
	header("Subject", mime.QEncoding.Encode("utf-8", inv.Subject))
	header("Date", time.Now().Format(time.RFC1123Z))
	header("Message-ID", fmt.Sprintf("<debrief-invitation-%d.%d@hindsight>", inv.ID, inv.CreatedAt.UnixNano()))
	header("MIME-Version", "1.0")
	header("Content-Type", `multipart/mixed; boundary="`+boundary+`"`)
	header("Auto-Submitted", "auto-generated")
	b.WriteString("\r\n")
	b.WriteString("--" + boundary + "\r\n")
	alt := boundary + "-alt"
	b.WriteString(`Content-Type: multipart/alternative; boundary="` + alt + "\"\r\n\r\n")
	b.WriteString("--" + alt + "\r\n")
	b.WriteString("Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n")
	qp := quotedprintable.NewWriter(&b)
	_, _ = qp.Write([]byte(strings.ReplaceAll(inv.Body, "\n", "\r\n")))
	_ = qp.Close()
	b.WriteString("\r\n--" + alt + "\r\n")
	b.WriteString("Content-Type: text/calendar; charset=utf-8; method=REQUEST\r\nContent-Transfer-Encoding: base64\r\n\r\n")
	writeBase64(&b, inv.Calendar)
	b.WriteString("--" + alt + "--\r\n")
	b.WriteString("--" + boundary + "\r\n")
	b.WriteString("Content-Type: application/ics; name=\"invite.ics\"\r\nContent-Disposition: attachment; filename=\"invite.ics\"\r\nContent-Transfer-Encoding: base64\r\n\r\n")
	writeBase64(&b, inv.Calendar)
	b.WriteString("--" + boundary + "--\r\n")
	return b.Bytes()
}

func writeBase64(b *bytes.Buffer, s string) {
	enc := base64.StdEncoding.EncodeToString([]byte(s))
	for len(enc) > 76 {
		b.WriteString(enc[:76] + "\r\n")
		enc = enc[76:]
	}
	b.WriteString(enc + "\r\n")
}
