package handlers

import (
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// ImageBodyLimit bounds an image upload's request: the image (models.MaxImageBytes) and the
// multipart framing around it.
const ImageBodyLimit = models.MaxImageBytes + 256<<10

// imageUploadAnswer is what the editors' script reads back: the Markdown to insert at the cursor.
type imageUploadAnswer struct {
	ID       int64  `json:"id"`
	URL      string `json:"url"`
	Markdown string `json:"markdown"`
}

// ImageUpload stores an image pasted, dropped or chosen beside an editor of the incident. The
// editors' script asks for JSON and inserts the Markdown at the cursor; without JavaScript the
// file input's form opens a page with the Markdown to paste. The file's bytes decide its type,
// never its name or the type the browser claimed.
func (h *Handlers) ImageUpload(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	wantsJSON := strings.Contains(c.Request().Header.Get(echo.HeaderAccept), echo.MIMEApplicationJSON)
	refuse := func(status int, message string) error {
		if wantsJSON {
			return c.JSON(status, APIErrorBody(message))
		}
		return echo.NewHTTPError(status, message)
	}
	var data []byte
	fh, err := c.FormFile("image")
	switch {
	case err == nil:
		f, openErr := fh.Open()
		if openErr != nil {
			return refuse(http.StatusBadRequest, "The upload could not be read.")
		}
		data, err = io.ReadAll(io.LimitReader(f, models.MaxImageBytes+1))
		f.Close()
		if err != nil {
			return refuse(http.StatusBadRequest, "The upload could not be read.")
		}
	case errors.Is(err, http.ErrMissingFile):
	default:
		var he *echo.HTTPError
		if errors.As(err, &he) {
			return refuse(he.Code, "The image is larger than 2 MiB.")
		}
		return refuse(http.StatusBadRequest, "The upload could not be read: send it as multipart/form-data with the file in \"image\".")
	}
	if len(data) == 0 {
		return refuse(http.StatusUnprocessableEntity, "Choose an image file to upload.")
	}
	img, err := h.Store.AddImage(c.Request().Context(), id, data)
	if models.IsImageError(err) {
		return refuse(http.StatusUnprocessableEntity, models.ImageMessage)
	}
	if errors.Is(err, models.ErrNotFound) {
		return refuse(http.StatusNotFound, "There is no such incident.")
	}
	if err != nil {
		return err
	}
	markdown := "![" + imageAlt(fh.Filename) + "](" + img.Path() + ")"
	if wantsJSON {
		return c.JSON(http.StatusCreated, imageUploadAnswer{ID: img.ID, URL: img.Path(), Markdown: markdown})
	}
	return render(c, http.StatusCreated, templates.ImageUploadedPage(templates.ImageUploadedView{
		Page:     templates.Page{Title: "Image uploaded", Section: "incidents"},
		Incident: id, Path: img.Path(), Markdown: markdown,
	}))
}

// imageAlt is the alternative text an uploaded image starts with: its file name without the
// extension, which the writer should replace with what the image shows. A pasted screenshot
// has no useful name.
func imageAlt(name string) string {
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		name = name[:i]
	}
	name = strings.Map(func(r rune) rune {
		switch r {
		case '[', ']', '(', ')', '\n', '\r', '\\', '!', '`', '*', '_', '<', '>':
			return ' '
		}
		return r
	}, name)
	name = strings.TrimSpace(name)
	if name == "" || name == "image" || strings.HasPrefix(strings.ToLower(name), "screenshot") {
		return "Describe the image"
	}
	if len(name) > 80 {
		name = name[:80]
	}
	return name
}
