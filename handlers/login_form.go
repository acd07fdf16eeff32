package handlers

import (
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// Home sends people to the incidents; on a fresh install it says how to create the first admin.
func (h *Handlers) Home(c echo.Context) error {
	if fresh, err := h.noAccountYet(c); err != nil || fresh {
		return h.firstRun(c, err)
	}
	return c.Redirect(http.StatusFound, "/incidents")
}

// LoginForm shows the sign-in page; a signed-in user goes straight on. While no account exists
// there is no one to sign in as, so it says how to create the first admin instead.
func (h *Handlers) LoginForm(c echo.Context) error {
	next := safeNext(c.QueryParam("next"))
	if CurrentUser(c) != nil {
		return c.Redirect(http.StatusSeeOther, next)
	}
	if fresh, err := h.noAccountYet(c); err != nil || fresh {
		return h.firstRun(c, err)
	}
	return h.renderLogin(c, http.StatusOK, templates.LoginView{Next: next})
}

func (h *Handlers) noAccountYet(c echo.Context) (bool, error) {
	n, err := h.Store.CountUsers(c.Request().Context())
	return n == 0, err
}

// firstRun shows the fresh-install page; it names where the setup link is, never the link.
func (h *Handlers) firstRun(c echo.Context, err error) error {
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.FirstRunPage(templates.FirstRunView{Page: templates.Page{Title: "Set up Hindsight"}}))
}

func (h *Handlers) renderLogin(c echo.Context, status int, v templates.LoginView) error {
	v.Page = templates.Page{Title: "Sign in"}
	o, _, err := h.SignIn.Current(c.Request().Context())
	if err != nil {
		return err
	}
	if o != nil {
		v.OIDCName, v.OIDCStart = o.Name(), "/login/oidc?next="+url.QueryEscape(v.Next)
	}
	h.withCSRF(c)
	return render(c, status, templates.LoginPage(v))
}

// withCSRF makes sure an anonymous visitor's form carries a CSRF token, creating their session.
func (h *Handlers) withCSRF(c echo.Context) {
	req := c.Request()
	pc := templates.PageContextOf(req.Context())
	pc.CSRF = h.CSRFToken(c)
	c.SetRequest(req.WithContext(templates.WithPageContext(req.Context(), pc)))
}

// safeNext is where to go after signing in: next when it is a path on this server, else home.
func safeNext(next string) string { return localPath(next, "/") }
