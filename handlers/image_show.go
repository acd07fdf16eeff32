package handlers

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/models"
)

// ImageShow serves an incident's image to someone signed in.
func (h *Handlers) ImageShow(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	img, err := h.Store.Image(c.Request().Context(), id)
	if err != nil {
		return storeError(err, "image")
	}
	// Kept by the browser only: an image of a deleted incident must not linger in a shared cache.
	return serveImage(c, img, "private, max-age=3600")
}

// StatusImage serves an image for the status page: only one its incident's public text refers
// to (a public update, or the postmortem as published). Any other is the status page's 404,
// the same as one that does not exist. Browsers may keep it a minute; shared caches may not, so
// an image taken off the page stops being served at once.
func (h *Handlers) StatusImage(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	img, err := h.Store.PublicImage(c.Request().Context(), id)
	if err != nil {
		return storeError(err, "image")
	}
	return serveImage(c, img, "private, max-age=60")
}

// serveImage writes an image as the type its bytes were found to be, never sniffed, never run:
// shown inline, in a sandbox with nothing allowed.
func serveImage(c echo.Context, img *models.IncidentImage, cache string) error {
	header := c.Response().Header()
	header.Set("Cache-Control", cache)
	header.Set("X-Content-Type-Options", "nosniff")
	header.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	header.Set("Content-Disposition", fmt.Sprintf(`inline; filename="image-%d%s"`, img.ID, imageExtension(img.ContentType)))
	header.Set("Last-Modified", img.CreatedAt.UTC().Format(http.TimeFormat))
	return c.Blob(http.StatusOK, img.ContentType, img.Data)
}

func imageExtension(contentType string) string {
	switch contentType {
	case "image/png":
		return ".png"
	case "image/jpeg":
		return ".jpg"
	case "image/gif":
		return ".gif"
	case "image/webp":
		return ".webp"
	}
	return ""
}
