package handlers

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// OnStatusHostKey is set in a request's context (echo's c.Set) by the server's host routing
// when the request came for the status host, where the status page lives at the root.
const OnStatusHostKey = "hindsight.on_status_host"

// onStatusHost tells whether the request came for the status host.
func onStatusHost(c echo.Context) bool {
	on, _ := c.Get(OnStatusHostKey).(bool)
	return on
}

// statusHost is the status page's own host name: the settings page's, else --status-host; ""
// when it has none and lives only under /status.
func (h *Handlers) statusHost(settings models.StatusSettings) string {
	if host := models.NormalHost(settings.StatusHost); host != "" {
		return host
	}
	return models.NormalHost(h.StatusHost)
}

// statusURL is where the public reads the status page: the status host's root, else the base
// URL's /status.
func (h *Handlers) statusURL(settings models.StatusSettings) string {
	return models.StatusURL(h.baseURL(settings), h.statusHost(settings))
}

// CurrentStatusHost is the status host as of now, for the server's host routing: read again only
// when the change mark moves (a settings save writes to history), so routing costs no query.
func (h *Handlers) CurrentStatusHost(ctx context.Context) (string, error) {
	mark, err := h.changeMark(ctx, time.Now())
	if err != nil {
		return "", err
	}
	sc := &h.status
	sc.mu.Lock()
	if sc.hostKnown && sc.hostMark == mark {
		host := sc.host
		sc.mu.Unlock()
		return host, nil
	}
	sc.mu.Unlock()
	settings, err := h.Store.StatusSettings(ctx)
	if err != nil {
		return "", err
	}
	host := h.statusHost(settings)
	sc.mu.Lock()
	sc.host, sc.hostMark, sc.hostKnown = host, mark, true
	sc.mu.Unlock()
	return host, nil
}

// StatusHostNotFound answers an address the status host does not serve: the status page's own
// 404, with nothing of the app in it.
func (h *Handlers) StatusHostNotFound(c echo.Context) error {
	head, err := h.statusHead(c, "Not found")
	if err != nil {
		return err
	}
	return render(c, http.StatusNotFound, templates.StatusNotFound(head))
}

// StatusLogo serves the uploaded logo as the type its bytes were found to be, for anyone to
// cache: pages link to it with its upload time as a version.
func (h *Handlers) StatusLogo(c echo.Context) error {
	logo, err := h.Store.StatusLogo(c.Request().Context())
	if err != nil {
		return storeError(err, "logo")
	}
	header := c.Response().Header()
	header.Set("Cache-Control", "public, max-age=86400")
	header.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	header.Set("Content-Disposition", `inline; filename="logo"`)
	header.Set("Last-Modified", logo.UpdatedAt.UTC().Format(http.TimeFormat))
	return c.Blob(http.StatusOK, logo.ContentType, logo.Data)
}

// logoPath is the logo's address with its version, "" without a logo.
func logoPath(head templates.StatusHead, updated *time.Time) string {
	if updated == nil {
		return ""
	}
	return head.Path("/logo") + "?v=" + strconv.FormatInt(updated.UnixMilli(), 36)
}
