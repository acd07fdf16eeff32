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

// FactorRemoveForm asks before a factor is removed, saying how many incidents and follow-ups
// lose the tag; it works without JavaScript.
func (h *Handlers) FactorRemoveForm(c echo.Context) error {
	f, err := h.factor(c)
	if err != nil {
		return err
	}
	incidents, followUps, err := h.Store.FactorUsage(c.Request().Context(), f.ID)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.FactorRemovePage(templates.FactorRemoveView{
		Page:   templates.Page{Title: "Remove " + f.Name, Section: "factors"},
		Factor: f, Incidents: incidents, FollowUps: followUps,
	}))
}

// FactorRemove removes a factor and its tags; the incidents and follow-ups stay.
func (h *Handlers) FactorRemove(c echo.Context) error {
	f, err := h.factor(c)
	if err != nil {
		return err
	}
	if err := h.Store.DeleteFactor(c.Request().Context(), f.ID); err != nil {
		return storeError(err, "factor")
	}
	return seeOther(c, "/factors")
}

// factor finds the factor the path names.
func (h *Handlers) factor(c echo.Context) (*models.Factor, error) {
	id, err := pathID(c, "id")
	if err != nil {
		return nil, err
	}
	factors, err := h.Store.ListFactors(c.Request().Context())
	if err != nil {
		return nil, err
	}
	for n := range factors {
		if factors[n].ID == id {
			return &factors[n], nil
		}
	}
	return nil, echo.NewHTTPError(http.StatusNotFound, "There is no such factor.")
}
