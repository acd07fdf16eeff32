package handlers

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/models"
)

// StatusSubscribe takes the subscribe form. Whatever the address's state (new, waiting for its
// confirmation, confirmed, or asked for too often), the answer is the same page.
func (h *Handlers) StatusSubscribe(c echo.Context) error {
	email, hook := c.FormValue("email"), c.FormValue("webhook_url")
	params, err := c.FormParams()
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, "The form could not be read.")
	}
	components := params["components"]
	err = h.Store.Subscribe(c.Request().Context(), models.SubscribeInput{Email: email, WebhookURL: hook, Components: components, IP: c.RealIP()})
	v, verr := h.subscribeView(c, components)
	if verr != nil {
		return verr
	}
	v.Email, v.WebhookURL = email, hook
	var fields models.FieldErrors
	switch {
	case errors.As(err, &fields):
		v.Errors = fields
		return h.renderSubscribe(c, http.StatusUnprocessableEntity, v)
	case errors.Is(err, models.ErrSubscribeThrottled):
		v.Error = "Too many subscribe requests came from your network in the last hour. Try again later."
		return h.renderSubscribe(c, http.StatusTooManyRequests, v)
	case err != nil:
		return err
	}
	v.Sent, v.Webhook = true, email == ""
	return h.renderSubscribe(c, http.StatusOK, v)
}
