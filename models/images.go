package models

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	_ "image/gif"  // an image may be a GIF
	_ "image/jpeg" // or a JPEG
	_ "image/png"  // or a PNG
	"regexp"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"
)

// MaxImageBytes bounds one pasted image: a screenshot of a graph is well under it, and the
// database keeps every byte.
const MaxImageBytes = 2 << 20

// maxImageSide bounds an image's width and height in pixels, so a small file cannot claim an
// image so large that decoding it takes a browser down.
const maxImageSide = 16384

// ImageMessage is the reason given for a file that is not an image Hindsight keeps.
const ImageMessage = "Must be a PNG, JPEG, GIF or WebP image of at most 2 MiB and 16384 × 16384 pixels."

// EntityImage names an incident's image in history.
const EntityImage = "incident_image"

// IncidentImage is an image pasted or dropped into one of an incident's texts. Text refers to
// it as Markdown, ![alt](/images/ID).
type IncidentImage struct {
	ID          int64     `json:"id"`
	IncidentID  int64     `json:"incident_id"`
	ContentType string    `json:"content_type"`
	Data        []byte    `json:"data"`
	Size        int64     `json:"size"`
	Width       int       `json:"width"`
	Height      int       `json:"height"`
	SHA256      string    `gorm:"column:sha256" json:"sha256"`
	CreatedAt   time.Time `json:"created_at"`
	CreatedBy   string    `json:"created_by"`
}

// TableName is the images' table.
func (IncidentImage) TableName() string { return "incident_images" }

// Path is the image's address in the app, as Markdown refers to it.
func (img *IncidentImage) Path() string { return "/images/" + strconv.FormatInt(img.ID, 10) }

// imageTypes are the formats image.DecodeConfig reads that an image may be, with the content
// type it is served as. SVG is not among them, nor ever will be: it can carry script.
var imageTypes = map[string]string{"png": "image/png", "jpeg": "image/jpeg", "gif": "image/gif"}

// ImageType reads an image's format and size from its bytes, never from a name or a claimed
// type; ok is false for anything but a PNG, JPEG, GIF or WebP within the limits.
func ImageType(data []byte) (contentType string, width, height int, ok bool) {
	if len(data) == 0 || len(data) > MaxImageBytes {
		return "", 0, 0, false
	}
	if w, h, isWebP := webpSize(data); isWebP {
		contentType, width, height = "image/webp", w, h
	} else {
		cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			return "", 0, 0, false
		}
		if contentType, ok = imageTypes[format]; !ok {
			return "", 0, 0, false
		}
		width, height = cfg.Width, cfg.Height
	}
	if width <= 0 || height <= 0 || width > maxImageSide || height > maxImageSide {
		return "", 0, 0, false
	}
	return contentType, width, height, true
}

// webpSize reads a WebP file's canvas size from its RIFF header (the standard library has no
// WebP decoder): a lossy VP8, lossless VP8L or extended VP8X first chunk. ok is false for
// anything else.
func webpSize(data []byte) (width, height int, ok bool) {
	if len(data) < 30 || string(data[0:4]) != "RIFF" || string(data[8:12]) != "WEBP" {
		return 0, 0, false
	}
	if riff := binary.LittleEndian.Uint32(data[4:8]); int64(riff)+8 > int64(len(data)) || riff < 22 {
		return 0, 0, false
	}
	chunk := data[12:16]
	body := data[20:]
	switch string(chunk) {
	case "VP8 ":
		// A key frame: 3 bytes of frame tag, the start code 9d 01 2a, then 14-bit sizes.
		if len(body) < 10 || body[3] != 0x9d || body[4] != 0x01 || body[5] != 0x2a {
			return 0, 0, false
		}
		width = int(binary.LittleEndian.Uint16(body[6:8]) & 0x3fff)
		height = int(binary.LittleEndian.Uint16(body[8:10]) & 0x3fff)
	case "VP8L":
		if len(body) < 5 || body[0] != 0x2f {
			return 0, 0, false
		}
		bits := binary.LittleEndian.Uint32(body[1:5])
		width = int(bits&0x3fff) + 1
		height = int((bits>>14)&0x3fff) + 1
	case "VP8X":
		if len(body) < 10 {
			return 0, 0, false
		}
		width = int(uint32(body[4])|uint32(body[5])<<8|uint32(body[6])<<16) + 1
		height = int(uint32(body[7])|uint32(body[8])<<8|uint32(body[9])<<16) + 1
	default:
		return 0, 0, false
	}
	return width, height, true
}

// IsImageError tells whether err is AddImage's refusal of the file.
func IsImageError(err error) bool {
	var errs FieldErrors
	return errors.As(err, &errs) && errs.For("image") != ""
}

// AddImage stores an image for one of an incident's texts, after checking its bytes
// (ImageType); a file that is not one comes back as FieldErrors on "image". The same image
// added to the same incident again is the one already stored. The write records the incident
// and goes into its history.
func (s *Store) AddImage(ctx context.Context, incidentID int64, data []byte) (*IncidentImage, error) {
	contentType, width, height, ok := ImageType(data)
	if !ok {
		return nil, FieldErrors{{Field: "image", Message: ImageMessage}}
	}
	sum := sha256.Sum256(data)
	digest := hex.EncodeToString(sum[:])
	var img IncidentImage
	err := s.withIncident(ctx, incidentID, false, func(tx *gorm.DB, c *changes) error {
		var same []IncidentImage
		if err := tx.Omit("data").Where("incident_id = ? AND sha256 = ?", incidentID, digest).Limit(1).Find(&same).Error; err != nil {
			return fmt.Errorf("look for the same image: %w", err)
		}
		if len(same) > 0 {
			img = same[0]
			return nil
		}
		img = IncidentImage{
			IncidentID: incidentID, ContentType: contentType, Data: data, Size: int64(len(data)),
			Width: width, Height: height, SHA256: digest, CreatedAt: time.Now().UTC(), CreatedBy: actorFrom(ctx).Label,
		}
		if err := tx.Create(&img).Error; err != nil {
			return fmt.Errorf("save image: %w", err)
		}
		return audit(tx, ActionCreate, EntityImage, img.ID, incidentID, nil, fields{
			"image": fmt.Sprintf("%s, %d × %d, %d bytes", contentType, width, height, len(data)),
		})
	})
	if err != nil {
		return nil, err
	}
	img.Data = nil
	return &img, nil
}

// Image reads one image for someone signed in; an image of a deleted incident is ErrNotFound,
// as the incident is.
func (s *Store) Image(ctx context.Context, id int64) (*IncidentImage, error) {
	var img IncidentImage
	err := s.read.WithContext(ctx).Table("incident_images AS i").Select("i.*").
		Joins("JOIN incidents ON incidents.id = i.incident_id AND incidents.deleted_at IS NULL").
		Where("i.id = ?", id).Take(&img).Error
	if err != nil {
		return nil, notFound(err, fmt.Sprintf("image %d", id))
	}
	return &img, nil
}

// imageRef finds the images a Markdown text refers to by the app's address.
var imageRef = regexp.MustCompile(`/images/([0-9]+)\b`)

// imageLinkStart finds the app's image addresses where Markdown links or images start,
// ![graph](/images/12) and [graph](</images/12>).
var imageLinkStart = regexp.MustCompile(`(\]\(\s*<?)/images/`)

// ImageLinks points the image addresses of a Markdown text at prefix: "/status" for the status
// page's own image route, the status page's absolute address for readers elsewhere (a feed
// reader, a Statuspage client), who can resolve neither a relative link nor the app's route,
// which needs a sign-in. It changes addresses only; which images the public may see is the
// status image route's to decide (PublicImage), and public text refers to no other.
func ImageLinks(markdown, prefix string) string {
	if !strings.Contains(markdown, "/images/") {
		return markdown
	}
	return imageLinkStart.ReplaceAllString(markdown, "${1}"+strings.ReplaceAll(prefix, "$", "$$")+"/images/")
}

// refersToImage tells whether a text refers to the image by its address.
func refersToImage(text string, id int64) bool {
	want := strconv.FormatInt(id, 10)
	for _, m := range imageRef.FindAllStringSubmatch(text, -1) {
		if m[1] == want {
			return true
		}
	}
	return false
}

// PublicImage reads an image for the status page: only one that its own public incident's
// public text refers to, a public status update or the postmortem as published, is found.
// Anything else, an image only internal text shows included, is ErrNotFound, the same as one
// that does not exist.
func (s *Store) PublicImage(ctx context.Context, id int64) (*IncidentImage, error) {
	db := s.read.WithContext(ctx)
	var heads []IncidentImage
	if err := db.Omit("data").Where("id = ?", id).Limit(1).Find(&heads).Error; err != nil {
		return nil, fmt.Errorf("read image %d: %w", id, err)
	}
	missing := fmt.Errorf("public image %d: %w", id, ErrNotFound)
	if len(heads) == 0 {
		return nil, missing
	}
	inc, err := s.PublicIncident(ctx, heads[0].IncidentID)
	if errors.Is(err, ErrNotFound) {
		return nil, missing
	}
	if err != nil {
		return nil, err
	}
	public := false
	for _, ev := range PublicEvents(inc) {
		if refersToImage(ev.Body, id) {
			public = true
			break
		}
	}
	if !public && inc.PostmortemState == PostmortemPublished {
		latest, err := s.LatestPostmortems(ctx, []int64{inc.ID})
		if err != nil {
			return nil, err
		}
		if v := latest[inc.ID]; v != nil {
			pm, err := v.Public()
			if err != nil {
				return nil, err
			}
			public = publicTextRefers(pm, id)
		}
	}
	if !public {
		return nil, missing
	}
	var img IncidentImage
	if err := db.Where("id = ?", id).Take(&img).Error; err != nil {
		return nil, notFound(err, fmt.Sprintf("image %d", id))
	}
	return &img, nil
}

// publicTextRefers tells whether the published postmortem's text refers to the image: the
// texts the status page renders as Markdown.
func publicTextRefers(pm PublicPostmortem, id int64) bool {
	texts := []string{pm.Summary, pm.CustomerImpact, pm.RootCause, pm.Detection, pm.Response}
	for _, sec := range pm.Sections {
		texts = append(texts, sec.Body)
	}
	for _, t := range texts {
		if refersToImage(t, id) {
			return true
		}
	}
	return false
}
