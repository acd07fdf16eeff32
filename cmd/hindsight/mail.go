package main

import (
	"flag"
	"fmt"
	"net/mail"

	"hindsight/handlers"
	"hindsight/models/notify"
)

// mailFlags adds the flags of the subscribers' mail and webhooks (see docs/status-page.md).
func mailFlags(fs *flag.FlagSet) func() (notify.Config, handlers.MailInfo, error) {
	smtpURL := fs.String("smtp-url", env("HINDSIGHT_SMTP_URL", ""), "SMTP server for status page subscribers' mail: smtp://user:pass@host:port (STARTTLS when offered) or smtps://… (TLS); off when empty, and mail waits in the outbox (env HINDSIGHT_SMTP_URL)")
	from := fs.String("smtp-from", env("HINDSIGHT_SMTP_FROM", ""), "From address of subscribers' mail, e.g. \"Example status <status@example.com>\"; needed with --smtp-url (env HINDSIGHT_SMTP_FROM)")
	allowPrivate := fs.Bool("webhook-allow-private", env("HINDSIGHT_WEBHOOK_ALLOW_PRIVATE", "") == "true", "let subscribers' webhooks reach loopback and private addresses, which are refused otherwise (env HINDSIGHT_WEBHOOK_ALLOW_PRIVATE=true)")
	return func() (notify.Config, handlers.MailInfo, error) {
		cfg := notify.Config{Webhooks: notify.NewWebhooks(0, *allowPrivate)}
		if *smtpURL == "" {
			return cfg, handlers.MailInfo{}, nil
		}
		mailer, err := notify.ParseSMTPURL(*smtpURL)
		if err != nil {
			return cfg, handlers.MailInfo{}, fmt.Errorf("--smtp-url: %w", err)
		}
		if _, err := mail.ParseAddress(*from); err != nil {
			return cfg, handlers.MailInfo{}, fmt.Errorf("--smtp-from %q: give the From address of subscribers' mail, such as status@example.com: %w", *from, err)
		}
		cfg.Mailer, cfg.From = mailer, *from
		return cfg, handlers.MailInfo{SMTP: mailer.Addr, From: *from}, nil
	}
}
