// Package handlers holds Hindsight's HTTP handlers: bind, validate, call the store, render.
package handlers

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"sync"

	"github.com/a-h/templ"
	"github.com/alexedwards/scs/v2"
	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// Handlers serves the pages and the API over one store.
type Handlers struct {
	Store    *models.Store
	Log      *slog.Logger
	Sessions *scs.SessionManager
	// BaseURL is where people reach the server (web.Deps.BaseURL, from --base-url); a base URL
	// saved on the settings page wins over it. See baseURL.
	BaseURL string
	// StatusHost is the status page's own host name (web.Deps.StatusHost, from --status-host); a
	// status host saved on the settings page wins over it.
	StatusHost string
	// Similar hands out each incident's kept similar incidents.
	Similar *models.SimilarKeeper
	// Fragments keeps rendered page bodies while their data stands still; nil keeps none.
	Fragments *Fragments
	// SetupToken opens the first-run page that creates the first admin; empty once anyone exists.
	SetupToken string
	// Warmed, when set, is closed once start-up has warmed the caches; /readyz waits for it.
	Warmed <-chan struct{}
	// SignIn says how people sign in: the identity provider in force, if any, and who may use
	// a password.
	SignIn *SignIn
	// WebhooksAllowPrivate lets webhook endpoints name loopback and private addresses.
	WebhooksAllowPrivate bool
	// Mail says how subscribers' mail is sent, for the admins' subscribers page.
	Mail MailInfo

	// status keeps the public status page's answers until the records change.
	status statusCache
	// alerts bounds the notifications each integration has filed at once.
	alerts alertLimiter
}

// render writes a component into a buffer first, so a failed render becomes a clean 500 page
// instead of half a page.
func render(c echo.Context, status int, component templ.Component) error {
	buf := renderBuffers.Get().(*bytes.Buffer)
	defer putRenderBuffer(buf)
	if err := component.Render(c.Request().Context(), buf); err != nil {
		return err
	}
	return c.HTMLBlob(status, buf.Bytes())
}

// renderBuffers are reused between pages: a page is tens of kilobytes, and growing a new buffer
// to that size for each was a good share of a kept page's cost.
var renderBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func putRenderBuffer(buf *bytes.Buffer) {
	if buf.Cap() <= 1<<20 {
		buf.Reset()
		renderBuffers.Put(buf)
	}
}

// pathID reads a numeric id from the path; anything else is a 404, since no such record exists.
func pathID(c echo.Context, name string) (int64, error) {
	id, err := strconv.ParseInt(c.Param(name), 10, 64)
	if err != nil || id <= 0 {
		return 0, echo.NewHTTPError(http.StatusNotFound, "There is no such record.")
	}
	return id, nil
}

// storeError turns the store's sentinels into HTTP errors; anything else stays a 500.
func storeError(err error, what string) error {
	var fe models.FieldErrors
	switch {
	case errors.As(err, &fe):
		return echo.NewHTTPError(http.StatusUnprocessableEntity, fe.Error()).SetInternal(err)
	case errors.Is(err, models.ErrNotFound):
		return echo.NewHTTPError(http.StatusNotFound, "There is no such "+what+".").SetInternal(err)
	case errors.Is(err, models.ErrConflict):
		return echo.NewHTTPError(http.StatusConflict, "This "+what+" was changed by someone else since you opened it. Reload it and apply your change again.").SetInternal(err)
	}
	return err
}

// ErrorPage renders an error page; the web package's error handler uses it.
func ErrorPage(c echo.Context, status int, message string) error {
	title := http.StatusText(status)
	if status == http.StatusNotFound {
		title = "Not found"
	}
	return render(c, status, templates.ErrorPage(templates.ErrorView{
		Page: templates.Page{Title: title}, Status: status, Message: message,
	}))
}

// seeOther redirects after a successful form post, so a reload does not post again.
func seeOther(c echo.Context, url string) error {
	return c.Redirect(http.StatusSeeOther, url)
}

func incidentURL(id int64) string { return "/incidents/" + itoa(id) }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
