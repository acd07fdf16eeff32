package models

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	_ "image/gif"  // a logo may be a GIF
	_ "image/jpeg" // or a JPEG
	_ "image/png"  // or a PNG
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// MaxLogoBytes bounds an uploaded logo: a status page's logo is small, and every visitor loads it.
const MaxLogoBytes = 256 << 10

// maxLogoSide bounds a logo's width and height in pixels, so a tiny file cannot claim a huge
// image that a browser then has to decode.
const maxLogoSide = 4096

// logoTypes are the image formats a logo may be, as image.DecodeConfig names them, with the
// content type it is served as. SVG is not among them: it can carry script.
var logoTypes = map[string]string{"png": "image/png", "jpeg": "image/jpeg", "gif": "image/gif"}

// LogoMessage is shown beside a logo that is not a PNG, JPEG or GIF within the limits.
const LogoMessage = "Must be a PNG, JPEG or GIF image of at most 256 KiB and 4096 × 4096 pixels."

// StatusLogo is the status page's uploaded logo.
type StatusLogo struct {
	ID          int `gorm:"primaryKey"`
	ContentType string
	Data        []byte
	UpdatedAt   time.Time
}

// TableName is the logo's table.
func (StatusLogo) TableName() string { return "status_logo" }

// LogoType reads an image's format from its bytes, never from a name or a claimed type, and
// returns the content type to serve it as; ok is false for anything but a PNG, JPEG or GIF within
// the limits.
func LogoType(data []byte) (contentType string, ok bool) {
	if len(data) == 0 || len(data) > MaxLogoBytes {
		return "", false
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width > maxLogoSide || cfg.Height > maxLogoSide {
		return "", false
	}
	contentType, ok = logoTypes[format]
	return contentType, ok
}

// StatusLogo reads the logo; ErrNotFound when none was uploaded.
func (s *Store) StatusLogo(ctx context.Context) (*StatusLogo, error) {
	var logo StatusLogo
	if err := s.read.WithContext(ctx).Take(&logo, 1).Error; err != nil {
		return nil, notFound(err, "status logo")
	}
	return &logo, nil
}

// StatusLogoUpdatedAt is when the logo was last uploaded, nil when there is none: pages link
// to it with this as its version, so a new logo is not hidden by a cached old one.
func (s *Store) StatusLogoUpdatedAt(ctx context.Context) (*time.Time, error) {
	var rows []StatusLogo
	if err := s.read.WithContext(ctx).Select("id", "updated_at").Where("id = 1").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("read status logo: %w", err)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	at := rows[0].UpdatedAt.UTC()
	return &at, nil
}

// SaveStatusLogo stores a new logo in place of any other, after checking its bytes (LogoType);
// a file that is not one comes back as FieldErrors on "logo". With data nil it removes the logo.
// The change goes into history, which also moves the status page's change mark.
func (s *Store) SaveStatusLogo(ctx context.Context, data []byte) error {
	contentType := ""
	if data != nil {
		var ok bool
		if contentType, ok = LogoType(data); !ok {
			return FieldErrors{{Field: "logo", Message: LogoMessage}}
		}
	}
	return s.inWrite(ctx, func(tx *gorm.DB, c *changes) error {
		c.shared() // the status page shows the logo
		var change map[string]any
		if data == nil {
			res := tx.Where("id = 1").Delete(&StatusLogo{})
			if res.Error != nil {
				return fmt.Errorf("remove status logo: %w", res.Error)
			}
			if res.RowsAffected == 0 {
				return nil
			}
			change = map[string]any{"logo": map[string]any{"from": "uploaded", "to": nil}}
		} else {
			logo := StatusLogo{ID: 1, ContentType: contentType, Data: data, UpdatedAt: time.Now().UTC()}
			err := tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "id"}}, DoUpdates: clause.AssignmentColumns([]string{"content_type", "data", "updated_at"})}).Create(&logo).Error
			if err != nil {
				return fmt.Errorf("save status logo: %w", err)
			}
			change = map[string]any{"logo": map[string]any{"to": fmt.Sprintf("%s, %d bytes", contentType, len(data))}}
		}
		raw, err := json.Marshal(change)
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

// IsLogoError tells whether err is SaveStatusLogo's refusal of the file.
func IsLogoError(err error) bool {
	var errs FieldErrors
	return errors.As(err, &errs) && errs.For("logo") != ""
}
