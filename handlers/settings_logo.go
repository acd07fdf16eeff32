package handlers

import (
	"errors"
	"io"
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// SettingsLogoUpload stores the status page's logo from the settings page's upload, or shows the
// page again with the reason beside the field: the file's bytes decide its type, never its name.
func (h *Handlers) SettingsLogoUpload(c echo.Context) error {
	ctx := c.Request().Context()
	var data []byte
	fh, err := c.FormFile("logo")
	if err == nil {
		f, openErr := fh.Open()
		if openErr != nil {
			return openErr
		}
		data, err = io.ReadAll(io.LimitReader(f, models.MaxLogoBytes+1))
		f.Close()
		if err != nil {
			return err
		}
	} else if !errors.Is(err, http.ErrMissingFile) {
		var he *echo.HTTPError
		if errors.As(err, &he) {
			return he
		}
		return echo.NewHTTPError(http.StatusBadRequest, "The upload could not be read.").SetInternal(err)
	}
	if len(data) == 0 {
		return h.settingsPageError(c, models.FieldErrors{{Field: "logo", Message: "Choose an image file to upload."}})
	}
	err = h.Store.SaveStatusLogo(ctx, data)
	var errs models.FieldErrors
	if errors.As(err, &errs) {
		return h.settingsPageError(c, errs)
	}
	if err != nil {
		return err
	}
	return seeOther(c, "/admin/settings?saved=1")
}

// SettingsLogoRemove removes the status page's logo.
func (h *Handlers) SettingsLogoRemove(c echo.Context) error {
	if err := h.Store.SaveStatusLogo(c.Request().Context(), nil); err != nil {
		return err
	}
	return seeOther(c, "/admin/settings?saved=1")
}

// settingsPageError shows the settings page again, its values as saved, with the errors.
func (h *Handlers) settingsPageError(c echo.Context, errs models.FieldErrors) error {
	view, err := h.settingsView(c)
	if err != nil {
		return err
	}
	view.Errors = errs
	return render(c, http.StatusUnprocessableEntity, templates.SettingsPage(view))
}
