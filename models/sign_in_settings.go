package models

import (
	"context"
	"encoding/json"
	"fmt"
	"net/mail"
	"net/url"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Password sign-in modes.
const (
	PasswordSignInAll        = "all"         // every account with a password
	PasswordSignInBreakGlass = "break-glass" // only the break-glass accounts
)

// SignInSettings are how people sign in, as an admin saves them on the settings page: the
// OpenID provider, the mapping of its groups to roles, and who keeps password sign-in. The
// lists are comma-separated as typed.
type SignInSettings struct {
	Issuer          string
	ClientID        string
	ClientSecret    string // never shown; an empty one on save keeps the one in force
	Name            string
	AdminGroups     string
	ResponderGroups string
	ViewerGroups    string
	DefaultRole     string
	PasswordSignIn  string
	BreakGlass      string
}

// Keys of the sign-in settings; settingIssuer is always written, so its row says the settings
// were saved at least once.
const (
	settingIssuer          = "oidc_issuer"
	settingClientID        = "oidc_client_id"
	settingClientSecret    = "oidc_client_secret"
	settingOIDCName        = "oidc_name"
	settingAdminGroups     = "oidc_admin_groups"
	settingResponderGroups = "oidc_responder_groups"
	settingViewerGroups    = "oidc_viewer_groups"
	settingDefaultRole     = "oidc_default_role"
	settingPasswordSignIn  = "password_signin"
	settingBreakGlass      = "break_glass_emails"
)

func (in *SignInSettings) fields() map[string]*string {
	return map[string]*string{
		settingIssuer: &in.Issuer, settingClientID: &in.ClientID, settingClientSecret: &in.ClientSecret,
		settingOIDCName: &in.Name, settingAdminGroups: &in.AdminGroups, settingResponderGroups: &in.ResponderGroups,
		settingViewerGroups: &in.ViewerGroups, settingDefaultRole: &in.DefaultRole,
		settingPasswordSignIn: &in.PasswordSignIn, settingBreakGlass: &in.BreakGlass,
	}
}

// SignInSettings reads the saved sign-in settings; saved is false while an admin never saved
// them, and the server's flags are in force.
func (s *Store) SignInSettings(ctx context.Context) (out SignInSettings, saved bool, err error) {
	fields := out.fields()
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	var rows []Setting
	if err := s.read.WithContext(ctx).Where("key IN ?", keys).Find(&rows).Error; err != nil {
		return out, false, fmt.Errorf("read sign-in settings: %w", err)
	}
	for _, r := range rows {
		*fields[r.Key] = r.Value
		saved = saved || r.Key == settingIssuer
	}
	return out, saved, nil
}

// SplitList reads a comma-separated list, without empty items or surrounding space.
func SplitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

func joinList(s string) string { return strings.Join(SplitList(s), ", ") }

// Normal trims the settings as they are stored: lists as "a, b", emails lowercased.
func (in SignInSettings) Normal() SignInSettings {
	in.Issuer = strings.TrimSpace(in.Issuer)
	in.ClientID = strings.TrimSpace(in.ClientID)
	in.ClientSecret = strings.TrimSpace(in.ClientSecret)
	in.Name = strings.TrimSpace(in.Name)
	in.AdminGroups, in.ResponderGroups, in.ViewerGroups = joinList(in.AdminGroups), joinList(in.ResponderGroups), joinList(in.ViewerGroups)
	in.DefaultRole = strings.TrimSpace(in.DefaultRole)
	if in.DefaultRole == "" {
		in.DefaultRole = RoleViewer
	}
	in.PasswordSignIn = strings.TrimSpace(in.PasswordSignIn)
	emails := SplitList(in.BreakGlass)
	for n := range emails {
		emails[n] = NormalizeEmail(emails[n])
	}
	in.BreakGlass = strings.Join(emails, ", ")
	return in
}

// ValidateSignInSettings says what is wrong with each field of normal settings.
func ValidateSignInSettings(in SignInSettings) FieldErrors {
	errs := FieldErrors{}
	if in.Issuer != "" {
		u, err := url.Parse(in.Issuer)
		switch {
		case len(in.Issuer) > 300:
			errs.Add("issuer", "At most 300 characters.")
		case err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.Opaque != "":
			errs.Add("issuer", "Must be the provider's https address, such as https://sso.example.com/realms/company.")
		case u.RawQuery != "" || u.Fragment != "" || u.User != nil || strings.ContainsAny(in.Issuer, "?#"):
			errs.Add("issuer", "An issuer has no user, query or fragment: give the address alone.")
		}
		if in.ClientID == "" {
			errs.Add("client_id", "Give the client id registered at the provider.")
		}
	}
	if len(in.ClientID) > 200 {
		errs.Add("client_id", "At most 200 characters.")
	}
	if len(in.ClientSecret) > 500 {
		errs.Add("client_secret", "At most 500 characters.")
	}
	if len(in.Name) > 60 {
		errs.Add("oidc_name", "At most 60 characters.")
	}
	for field, v := range map[string]string{"admin_groups": in.AdminGroups, "responder_groups": in.ResponderGroups, "viewer_groups": in.ViewerGroups} {
		if len(v) > 1000 {
			errs.Add(field, "At most 1000 characters.")
		}
	}
	if RoleRank(in.DefaultRole) == 0 {
		errs.Add("default_role", "Choose viewer, responder or admin.")
	}
	switch in.PasswordSignIn {
	case PasswordSignInAll:
	case PasswordSignInBreakGlass:
		if in.Issuer == "" {
			errs.Add("password_signin", "Turning password sign-in off needs an identity provider (the issuer URL above) to sign in with.")
		}
	default:
		errs.Add("password_signin", "Choose all accounts or break-glass accounts only.")
	}
	if len(in.BreakGlass) > 2000 {
		errs.Add("break_glass", "At most 2000 characters.")
	} else {
		for _, e := range SplitList(in.BreakGlass) {
			if a, err := mail.ParseAddress(e); err != nil || a.Address != e {
				errs.Add("break_glass", fmt.Sprintf("%q is not an email address; separate addresses with commas.", e))
				break
			}
		}
	}
	return errs
}

// SaveSignInSettings stores checked sign-in settings and records the change in history, the
// secret's only as changed. An empty secret keeps the saved one.
func (s *Store) SaveSignInSettings(ctx context.Context, in SignInSettings) error {
	in = in.Normal()
	if errs := ValidateSignInSettings(in); len(errs) > 0 {
		return errs
	}
	return s.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		before, _, err := s.SignInSettings(ctx)
		if err != nil {
			return err
		}
		if in.ClientSecret == "" {
			in.ClientSecret = before.ClientSecret
		}
		var rows []Setting
		for k, v := range in.fields() {
			rows = append(rows, Setting{k, *v})
		}
		err = tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "key"}}, DoUpdates: clause.AssignmentColumns([]string{"value"})}).Create(&rows).Error
		if err != nil {
			return fmt.Errorf("save sign-in settings: %w", err)
		}
		shown := func(v SignInSettings) fields {
			return fields{"oidc_issuer": v.Issuer, "oidc_client_id": v.ClientID, "oidc_name": v.Name,
				"oidc_admin_groups": v.AdminGroups, "oidc_responder_groups": v.ResponderGroups, "oidc_viewer_groups": v.ViewerGroups,
				"oidc_default_role": v.DefaultRole, "password_signin": v.PasswordSignIn, "break_glass_emails": v.BreakGlass}
		}
		changes := diff(shown(before), shown(in))
		if in.ClientSecret != before.ClientSecret {
			changes = append(changes, Change{Field: "oidc_client_secret", Before: "(hidden)", After: "(replaced)"})
		}
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

// HasOIDCIdentity tells whether the account has an identity at the issuer, so it can sign in
// there.
func (s *Store) HasOIDCIdentity(ctx context.Context, userID int64, issuer string) (bool, error) {
	var n int64
	err := s.read.WithContext(ctx).Model(&OIDCIdentity{}).Where("user_id = ? AND issuer = ?", userID, issuer).Count(&n).Error
	if err != nil {
		return false, fmt.Errorf("identity of user %d: %w", userID, err)
	}
	return n > 0, nil
}

// SettingsHistory lists the changes recorded of the site settings, newest first.
func (s *Store) SettingsHistory(ctx context.Context) ([]AuditEntry, error) {
	var out []AuditEntry
	err := s.read.WithContext(ctx).Where("entity = ?", EntitySettings).Order("at DESC").Order("id DESC").Find(&out).Error
	if err != nil {
		return nil, fmt.Errorf("settings history: %w", err)
	}
	return out, nil
}
