package handlers

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// FactorList shows the taxonomy; for an admin, ?edit= opens one factor's form in place.
func (h *Handlers) FactorList(c echo.Context) error {
	factors, err := h.Store.ListFactors(c.Request().Context())
	if err != nil {
		return err
	}
	view := templates.FactorsView{Page: templates.Page{Title: "Contributing factors", Section: "factors"}, Factors: factors}
	if id, _ := strconv.ParseInt(c.QueryParam("edit"), 10, 64); id != 0 {
		for _, f := range factors {
			if f.ID == id {
				view.EditID, view.Values = id, models.FactorInput{Slug: f.Slug, Name: f.Name, Description: f.Description}
			}
		}
	}
	return render(c, http.StatusOK, templates.FactorsPage(view))
}

// FactorSave adds a factor (POST /factors) or changes one (POST /factors/{id}).
func (h *Handlers) FactorSave(c echo.Context) error {
	var id int64
	if c.Param("id") != "" {
		var err error
		if id, err = pathID(c, "id"); err != nil {
			return err
		}
	}
	in := models.FactorInput{Slug: c.FormValue("slug"), Name: c.FormValue("name"), Description: c.FormValue("description")}
	errs := models.Validate(in)
	if len(errs) == 0 {
		_, err := h.Store.SaveFactor(c.Request().Context(), id, in)
		if fe, ok := asFieldErrors(err); ok {
			errs = fe
		} else if err != nil {
			return storeError(err, "factor")
		} else {
			return seeOther(c, "/factors")
		}
	}
	factors, err := h.Store.ListFactors(c.Request().Context())
	if err != nil {
		return err
	}
	return render(c, http.StatusUnprocessableEntity, templates.FactorsPage(templates.FactorsView{
		Page: templates.Page{Title: "Contributing factors", Section: "factors"}, Factors: factors, EditID: id, Values: in, Errors: errs,
	}))
}
