package notify

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/mail"
	"net/smtp"
	"net/textproto"
	"net/url"
	"time"
)

// SMTP sends mail through the operator's server, named by a URL: smtp://user:pass@host:port
// (STARTTLS when the server offers it; port 587 when none is given) or smtps://… (TLS from the
// first byte; port 465). Credentials are sent only over TLS, or to a server on this machine.
type SMTP struct {
	Addr     string // host:port
	Host     string
	Username string
	Password string
	Implicit bool // smtps: TLS from the start
	// Timeout bounds the whole exchange for one message.
	Timeout time.Duration
	// TLS overrides the TLS configuration (tests); nil verifies the server as usual.
	TLS *tls.Config
}

// ParseSMTPURL reads an --smtp-url.
func ParseSMTPURL(raw string) (*SMTP, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("smtp url: %w", err)
	}
	m := &SMTP{Host: u.Hostname(), Timeout: 30 * time.Second}
	port := u.Port()
	switch u.Scheme {
	case "smtp":
		if port == "" {
			port = "587"
		}
	case "smtps":
		m.Implicit = true
		if port == "" {
			port = "465"
		}
	default:
		return nil, fmt.Errorf("smtp url %q: the scheme is smtp:// or smtps://", u.Redacted())
	}
	if m.Host == "" {
		return nil, fmt.Errorf("smtp url %q: it names no host", u.Redacted())
	}
	m.Addr = net.JoinHostPort(m.Host, port)
	if u.User != nil {
		m.Username = u.User.Username()
		m.Password, _ = u.User.Password()
	}
	return m, nil
}

// Send delivers one message, already formatted with its headers, to one recipient.
func (m *SMTP) Send(from, to string, message []byte) error {
	timeout := m.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	conn, err := net.DialTimeout("tcp", m.Addr, timeout)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", m.Addr, err)
	}
	// One deadline for the whole exchange: net/smtp has none of its own.
	if err := conn.SetDeadline(time.Now().Add(timeout)); err != nil {
		conn.Close()
		return err
	}
	tlsConfig := m.TLS
	if tlsConfig == nil {
		tlsConfig = &tls.Config{ServerName: m.Host, MinVersion: tls.VersionTLS12}
	}
	if m.Implicit {
		conn = tls.Client(conn, tlsConfig)
	}
	c, err := smtp.NewClient(conn, m.Host)
	if err != nil {
		conn.Close()
		return fmt.Errorf("smtp greeting from %s: %w", m.Addr, err)
	}
	defer c.Close()
	if !m.Implicit {
		if ok, _ := c.Extension("STARTTLS"); ok {
			if err := c.StartTLS(tlsConfig); err != nil {
				return fmt.Errorf("smtp starttls: %w", err)
			}
		}
	}
	if m.Username != "" {
		// PlainAuth itself refuses to send the password unencrypted to anything but localhost.
		if err := c.Auth(smtp.PlainAuth("", m.Username, m.Password, m.Host)); err != nil {
			return fmt.Errorf("smtp auth: %w", err)
		}
	}
	// The envelope takes the bare address of a From such as "Status <status@example.com>".
	if addr, err := mail.ParseAddress(from); err == nil {
		from = addr.Address
	}
	if err := c.Mail(from); err != nil {
		return fmt.Errorf("smtp MAIL FROM: %w", err)
	}
	if err := c.Rcpt(to); err != nil {
		return permanentIf(isPermanentSMTP(err), fmt.Errorf("smtp RCPT TO: %w", err))
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("smtp DATA: %w", err)
	}
	if _, err := w.Write(message); err != nil {
		return fmt.Errorf("smtp message: %w", err)
	}
	if err := w.Close(); err != nil {
		return permanentIf(isPermanentSMTP(err), fmt.Errorf("smtp message: %w", err))
	}
	return c.Quit()
}

// isPermanentSMTP tells a 5xx reply (no such mailbox, refused) from a passing trouble.
func isPermanentSMTP(err error) bool {
	var reply *textproto.Error
	return errors.As(err, &reply) && reply.Code >= 500
}
