package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// MailInfo is how subscribers' mail is sent: the SMTP server (without its credentials) and the
// From address; SMTP is empty when none is configured.
type MailInfo struct {
	SMTP string
	From string
}

// StatusSubscribeForm shows the status page's subscribe form. It is not cached with the status
// page: it carries the visitor's CSRF token.
func (h *Handlers) StatusSubscribeForm(c echo.Context) error {
	v, err := h.subscribeView(c, nil)
	if err != nil {
		return err
	}
	return h.renderSubscribe(c, http.StatusOK, v)
}

// subscribeView builds the form with the status page's components, those chosen ticked.
func (h *Handlers) subscribeView(c echo.Context, chosen []string) (templates.StatusSubscribeView, error) {
	ctx := c.Request().Context()
	head, err := h.statusHead(c, "Subscribe to updates")
	if err != nil {
		return templates.StatusSubscribeView{}, err
	}
	// Subscribers choose among the status page's components (kept by name).
	services, err := h.Store.ListComponents(ctx)
	if err != nil {
		return templates.StatusSubscribeView{}, err
	}
	v := templates.StatusSubscribeView{Head: head}
	picked := map[string]bool{}
	for _, name := range chosen {
		picked[name] = true
	}
	for _, sv := range services {
		v.Components = append(v.Components, templates.SubscribeComponent{Name: sv.Name, Checked: picked[sv.Name]})
	}
	return v, nil
}

func (h *Handlers) renderSubscribe(c echo.Context, status int, v templates.StatusSubscribeView) error {
	h.withCSRF(c)
	return render(c, status, templates.StatusSubscribePage(v))
}
