package models

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Setting is one site-wide setting.
type Setting struct {
	Key   string `gorm:"primaryKey"`
	Value string
}

// EntitySettings names site settings in history.
const EntitySettings = "settings"

// Keys of the site settings.
const (
	settingStatusName     = "status_page_name"
	settingStatusTimeZone = "status_page_time_zone"
	settingBaseURL        = "base_url"
	settingStatusHost     = "status_host"
	settingSupportURL     = "status_page_support_url"
)

// settingKeys are the keys StatusSettings reads and writes.
var settingKeys = []string{settingStatusName, settingStatusTimeZone, settingBaseURL, settingStatusHost, settingSupportURL}

// StatusSettings are the status page's name, the time zone its times are shown in, and the
// site's base URL. They are read together because every status page needs all three.
type StatusSettings struct {
	Name     string `json:"name" validate:"required,max=100"`
	TimeZone string `json:"time_zone" validate:"required,timezone"`
	// BaseURL is where people reach Hindsight (https://hindsight.example.com, or with a path
	// prefix), for absolute links, feed ids and entry ids. Empty leaves it to the server's
	// --base-url. It is never taken from a request: the Host header is the client's to choose.
	BaseURL string `json:"base_url" validate:"omitempty,max=200,weburl"`
	// StatusHost is a host name of the status page's own (status.example.com): requests for it get
	// the status page at its root and nothing of the app. Empty leaves it to --status-host.
	StatusHost string `json:"status_host" validate:"omitempty,max=253,hostname_rfc1123"`
	// SupportURL is where the status page sends people who need help; empty shows no link.
	SupportURL string `json:"support_url" validate:"omitempty,max=200,weburl"`
}

// DefaultStatusSettings are used until an admin saves others.
var DefaultStatusSettings = StatusSettings{Name: "Status", TimeZone: "UTC"}

// Location is the zone the status page shows times in.
func (s StatusSettings) Location() *time.Location { return LoadLocation(s.TimeZone) }

// StatusSettings reads the status page settings, with the defaults for what was never set.
func (s *Store) StatusSettings(ctx context.Context) (StatusSettings, error) {
	var rows []Setting
	err := s.read.WithContext(ctx).Where("key IN ?", settingKeys).Find(&rows).Error
	if err != nil {
		return StatusSettings{}, fmt.Errorf("read settings: %w", err)
	}
	out := DefaultStatusSettings
	for _, r := range rows {
		switch r.Key {
		case settingStatusName:
			out.Name = r.Value
		case settingStatusTimeZone:
			out.TimeZone = r.Value
		case settingBaseURL:
			out.BaseURL = r.Value
		case settingStatusHost:
			out.StatusHost = r.Value
		case settingSupportURL:
			out.SupportURL = r.Value
		}
	}
	return out, nil
}

// SaveStatusSettings checks and stores the status page settings, and records the change in
// history. Invalid input comes back as FieldErrors.
func (s *Store) SaveStatusSettings(ctx context.Context, in StatusSettings) error {
	in.Name = strings.TrimSpace(in.Name)
	in.TimeZone = strings.TrimSpace(in.TimeZone)
	in.BaseURL = NormalBaseURL(in.BaseURL)
	in.StatusHost = NormalHost(in.StatusHost)
	in.SupportURL = strings.TrimSpace(in.SupportURL)
	errs := Validate(in)
	if errs.For("base_url") == "" {
		if problem := baseURLProblem(in.BaseURL); problem != "" {
			errs.Add("base_url", problem)
		}
	}
	if errs.For("status_host") != "" {
		errs = slices.DeleteFunc(errs, func(fe FieldError) bool { return fe.Field == "status_host" })
		errs.Add("status_host", StatusHostMessage)
	} else if in.StatusHost != "" && in.BaseURL != "" && hostOf(in.BaseURL) == in.StatusHost {
		errs.Add("status_host", "Must differ from the base URL's host, or the app could no longer be reached.")
	}
	if len(errs) > 0 {
		return errs
	}
	return s.inWrite(ctx, func(tx *gorm.DB, c *changes) error {
		c.shared()
		before, err := s.StatusSettings(ctx)
		if err != nil {
			return err
		}
		rows := []Setting{{settingStatusName, in.Name}, {settingStatusTimeZone, in.TimeZone}, {settingBaseURL, in.BaseURL}}
		// The later settings are kept only while set, so a site that never used them stores
		// (and backs up) what it did before they existed.
		var unset []string
		for _, opt := range []Setting{{settingStatusHost, in.StatusHost}, {settingSupportURL, in.SupportURL}} {
			if opt.Value == "" {
				unset = append(unset, opt.Key)
			} else {
				rows = append(rows, opt)
			}
		}
		if err := tx.Where("key IN ?", unset).Delete(&Setting{}).Error; err != nil {
			return fmt.Errorf("save settings: %w", err)
		}
		err = tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "key"}}, DoUpdates: clause.AssignmentColumns([]string{"value"})}).Create(&rows).Error
		if err != nil {
			return fmt.Errorf("save settings: %w", err)
		}
		changes := diff(
			fields{"name": before.Name, "time_zone": before.TimeZone, "base_url": before.BaseURL, "status_host": before.StatusHost, "support_url": before.SupportURL},
			fields{"name": in.Name, "time_zone": in.TimeZone, "base_url": in.BaseURL, "status_host": in.StatusHost, "support_url": in.SupportURL})
		if len(changes) == 0 {
			return nil
		}
		raw, err := json.Marshal(changes)
		if err != nil {
			return err
		}
		actor := actorFrom(ctx)
		entry := AuditEntry{At: time.Now().UTC(), Actor: actor.Label, Action: ActionUpdate, Entity: EntitySettings, Changes: string(raw)}
		if actor.UserID != 0 {
			entry.ActorID = &actor.UserID
		}
		if err := tx.Create(&entry).Error; err != nil {
			return fmt.Errorf("record history: %w", err)
		}
		return nil
	})
}

// NormalBaseURL trims a base URL to the form links are built on: no surrounding space and no
// trailing slash, so base + "/status" has one.
func NormalBaseURL(raw string) string {
	return strings.TrimRight(strings.TrimSpace(raw), "/")
}

// BaseURLProblem says what is wrong with a base URL, or "" when it will do: it must be an
// absolute http or https URL with a host, and carry no user, query or fragment, which a link
// built on it would repeat or mangle.
func BaseURLProblem(raw string) string {
	if raw == "" {
		return ""
	}
	return baseURLProblem(NormalBaseURL(raw))
}

func baseURLProblem(base string) string {
	if base == "" {
		return ""
	}
	u, err := url.Parse(base)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "":
		return "Must be an http or https address such as https://hindsight.example.com."
	case u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.ContainsAny(base, "?#"):
		return "Give the address alone, without a user, a query or a fragment."
	}
	return ""
}

// StatusHostMessage is shown beside a status host that is not a host name.
const StatusHostMessage = "Must be a host name alone, such as status.example.com: no scheme, port or path."

// NormalHost trims a host name and lowers its case, as the Host header is compared with it.
func NormalHost(raw string) string {
	return strings.ToLower(strings.TrimSuffix(strings.TrimSpace(raw), "."))
}

// StatusHostProblem says what is wrong with a status host name, or "" when it will do.
func StatusHostProblem(raw string) string {
	if errs := Validate(struct {
		Host string `validate:"omitempty,max=253,hostname_rfc1123"`
	}{NormalHost(raw)}); len(errs) > 0 {
		return StatusHostMessage
	}
	return ""
}

func hostOf(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return ""
	}
	return NormalHost(u.Hostname())
}

// StatusURL is where the public reads the status page, built on the base URL: the status host's
// root on the base URL's scheme when a status host is given, else the base URL's /status.
func StatusURL(base, statusHost string) string {
	base = NormalBaseURL(base)
	if statusHost == "" {
		return base + "/status"
	}
	scheme := "https"
	if u, err := url.Parse(base); err == nil && u.Scheme != "" {
		scheme = u.Scheme
	}
	return scheme + "://" + statusHost
}
