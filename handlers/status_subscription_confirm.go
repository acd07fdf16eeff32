package handlers

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// StatusConfirmForm is where a confirmation mail's link leads: a button that confirms. Following
// the link alone changes nothing, so a mail scanner that opens every link confirms nobody.
func (h *Handlers) StatusConfirmForm(c echo.Context) error {
	ctx := c.Request().Context()
	token := c.Param("token")
	sub, err := h.Store.SubscriberByToken(ctx, token)
	if errors.Is(err, models.ErrNotFound) {
		return h.subscriptionPage(c, http.StatusNotFound, templates.StatusSubscriptionView{
			Heading: "Link not valid", Text: "This link is not valid any more: the subscription was ended, or never existed. You can subscribe again from the status page.", Done: true,
		})
	}
	if err != nil {
		return err
	}
	v := templates.StatusSubscriptionView{
		Heading: "Confirm your subscription", Text: "Send status updates to " + sub.Address + ", " + subscribedTo(sub.Components) + "?",
		Action: "/status/subscriptions/" + url.PathEscape(token) + "/confirm", Button: "Confirm",
	}
	if sub.ConfirmedAt != nil {
		v = templates.StatusSubscriptionView{Heading: "Subscribed", Text: sub.Address + " is subscribed, " + subscribedTo(sub.Components) + ".", Done: true}
	}
	return h.subscriptionPage(c, http.StatusOK, v)
}

// StatusConfirm confirms a subscription. The token in the address is the credential: the form
// needs no CSRF token (see csrfExempt in web), since another site cannot know it.
func (h *Handlers) StatusConfirm(c echo.Context) error {
	err := h.Store.ConfirmSubscriber(c.Request().Context(), c.Param("token"))
	if errors.Is(err, models.ErrNotFound) {
		return h.subscriptionPage(c, http.StatusNotFound, templates.StatusSubscriptionView{
			Heading: "Link not valid", Text: "This link is not valid any more. You can subscribe again from the status page.", Done: true,
		})
	}
	if err != nil {
		return err
	}
	return h.subscriptionPage(c, http.StatusOK, templates.StatusSubscriptionView{
		Heading: "Subscribed", Text: "Thank you: you will hear of each public update and each published postmortem. Every message has a link to unsubscribe.", Done: true,
	})
}

func subscribedTo(components []string) string {
	if len(components) == 0 {
		return "for every component"
	}
	out := "for "
	for n, c := range components {
		if n > 0 {
			out += ", "
		}
		out += c
	}
	return out
}

func (h *Handlers) subscriptionPage(c echo.Context, status int, v templates.StatusSubscriptionView) error {
	head, err := h.statusHead(c, v.Heading)
	if err != nil {
		return err
	}
	v.Head = head
	return render(c, status, templates.StatusSubscriptionPage(v))
}
