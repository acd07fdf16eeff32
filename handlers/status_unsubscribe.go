package handlers

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// StatusUnsubscribeForm is where a message's unsubscribe link leads: a button that unsubscribes.
// RFC 8058 forbids a GET of the link to unsubscribe, since mail scanners open links.
func (h *Handlers) StatusUnsubscribeForm(c echo.Context) error {
	token := c.Param("token")
	sub, err := h.Store.SubscriberByToken(c.Request().Context(), token)
	if errors.Is(err, models.ErrNotFound) {
		return h.subscriptionPage(c, http.StatusOK, templates.StatusSubscriptionView{
			Heading: "Unsubscribed", Text: "This address is not subscribed: nothing more will be sent to it.", Done: true,
		})
	}
	if err != nil {
		return err
	}
	return h.subscriptionPage(c, http.StatusOK, templates.StatusSubscriptionView{
		Heading: "Unsubscribe", Text: "Stop sending status updates to " + sub.Address + "?",
		Action: "/status/unsubscribe/" + url.PathEscape(token), Button: "Unsubscribe",
	})
}

// StatusUnsubscribe ends a subscription: the page's button, and the one-click POST a mail client
// sends from the List-Unsubscribe header (body List-Unsubscribe=One-Click, RFC 8058), which
// carries no cookie and no CSRF token: the token in the address is the credential. Unsubscribing
// twice is fine, and the answer is the same for a token that is gone.
func (h *Handlers) StatusUnsubscribe(c echo.Context) error {
	err := h.Store.Unsubscribe(c.Request().Context(), c.Param("token"))
	if err != nil && !errors.Is(err, models.ErrNotFound) {
		return err
	}
	return h.subscriptionPage(c, http.StatusOK, templates.StatusSubscriptionView{
		Heading: "Unsubscribed", Text: "Done: nothing more will be sent to this address, and it is no longer kept.", Done: true,
	})
}
