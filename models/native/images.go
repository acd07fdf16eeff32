package native

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"hindsight/models"
)

// image is an incident's pasted image in the document, its bytes as base64. The list comes
// before the incidents, since a reader returns once the incidents are read; the store writes
// the images after them, in the same transaction.
type image struct {
	ID          int64     `json:"id"`
	IncidentID  int64     `json:"incident_id"`
	ContentType string    `json:"content_type"`
	Width       int       `json:"width"`
	Height      int       `json:"height"`
	SHA256      string    `json:"sha256"`
	CreatedAt   time.Time `json:"created_at"`
	CreatedBy   string    `json:"created_by"`
	Data        []byte    `json:"data"`
}

// writeImages writes the "images" list, one image at a time.
func writeImages(ctx context.Context, store *models.Store, out *bufio.Writer) error {
	fmt.Fprintf(out, "  %q: [", "images")
	first := true
	err := store.AllImages(ctx, func(img models.IncidentImage) error {
		if !first {
			out.WriteString(",")
		}
		first = false
		return writeElement(out, image{img.ID, img.IncidentID, img.ContentType, img.Width, img.Height, img.SHA256, instant(img.CreatedAt), img.CreatedBy, img.Data})
	})
	if err != nil {
		return err
	}
	if !first {
		out.WriteString("\n  ")
	}
	out.WriteString("],\n")
	return nil
}

// decodeImages reads the "images" list; the store checks each image's bytes again as it
// writes it.
func decodeImages(dec *json.Decoder, into *[]models.IncidentImage) error {
	var rows []image
	if err := dec.Decode(&rows); err != nil {
		return err
	}
	for _, r := range rows {
		*into = append(*into, models.IncidentImage{
			ID: r.ID, IncidentID: r.IncidentID, ContentType: r.ContentType, Data: r.Data, Size: int64(len(r.Data)),
			Width: r.Width, Height: r.Height, SHA256: r.SHA256, CreatedAt: r.CreatedAt, CreatedBy: r.CreatedBy,
		})
	}
	return nil
}
