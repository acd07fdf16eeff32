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

// statusHostRecheck is how long the status host read from the settings is trusted before it is
// read again, in the background: another server's settings save shows within it.
const statusHostRecheck = 5 * time.Second

// CurrentStatusHost is the status host as of now, for the server's host routing. It is read from
// the settings once, then again in the background every statusHostRecheck and at once after this
// process saves the settings (RefreshStatusHost), so routing a request runs no statement.
func (h *Handlers) CurrentStatusHost(ctx context.Context) (string, error) {
	sc := &h.status
	sc.mu.Lock()
	host, known, stale := sc.host, sc.hostKnown, time.Since(sc.hostAt) > statusHostRecheck && !sc.hostLoading
	if known && stale {
		sc.hostLoading = true
	}
	sc.mu.Unlock()
	if !known {
		return h.RefreshStatusHost(ctx)
	}
	if stale {
		go func() {
			err := models.Safely(func() error {
				_, err := h.RefreshStatusHost(context.Background())
				return err
			})
			if err != nil {
				h.Log.Error("read the status host", "err", err)
			}
			sc.mu.Lock()
			sc.hostLoading = false
			sc.mu.Unlock()
		}()
	}
	return host, nil
}

// RefreshStatusHost reads the status host from the settings now and keeps it.
func (h *Handlers) RefreshStatusHost(ctx context.Context) (string, error) {
	settings, err := h.Store.StatusSettings(ctx)
	if err != nil {
		return "", err
	}
	host := h.statusHost(settings)
	sc := &h.status
	sc.mu.Lock()
	sc.host, sc.hostAt, sc.hostKnown = host, time.Now(), true
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
