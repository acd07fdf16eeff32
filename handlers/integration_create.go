package handlers

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// IntegrationCreate adds an alerting integration and shows its secret once, in this response only.
func (h *Handlers) IntegrationCreate(c echo.Context) error {
	in := models.IntegrationInput{
		Kind: c.FormValue("kind"), Name: c.FormValue("name"), Mapping: c.FormValue("mapping"), SigningKey: c.FormValue("signing_key"),
	}
	secret, integ, err := h.Store.CreateIntegration(c.Request().Context(), in)
	var errs models.FieldErrors
	if errors.As(err, &errs) {
		in.SigningKey = "" // a secret is never sent back
		return h.renderIntegrations(c, http.StatusUnprocessableEntity, templates.IntegrationsView{Values: in, Errors: errs})
	}
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return h.renderIntegrations(c, http.StatusCreated, templates.IntegrationsView{NewSecret: secret, NewID: integ.ID})
}
