package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// SubscriberList shows the admins how many follow the status page and how mail is sent.
func (h *Handlers) SubscriberList(c echo.Context) error {
	counts, err := h.Store.SubscriberCounts(c.Request().Context())
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.SubscribersPage(templates.SubscribersView{
		Page: templates.Page{Title: "Subscribers", Section: "users"}, Counts: counts, SMTP: h.Mail.SMTP, From: h.Mail.From,
	}))
}
