package handlers

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// TemplateCreate adds an admin's template from the form's rows of heading, prompt, public and
// required; rows without a heading or prompt are skipped.
func (h *Handlers) TemplateCreate(c echo.Context) error {
	form, err := formValues(c)
	if err != nil {
		return err
	}
	in := models.TemplateInput{Name: form.Get("name"), Description: form.Get("description")}
	headings, prompts := form["heading"], form["prompt"]
	if len(headings) > templates.NewSectionRows || len(prompts) > templates.NewSectionRows {
		return echo.NewHTTPError(http.StatusUnprocessableEntity, "The form has more section rows than it offers.")
	}
	for n := range headings {
		prompt := ""
		if n < len(prompts) {
			prompt = prompts[n]
		}
		if strings.TrimSpace(headings[n]) == "" && strings.TrimSpace(prompt) == "" {
			continue
		}
		row := strconv.Itoa(n)
		in.Sections = append(in.Sections, models.TemplateSectionInput{
			Heading: headings[n], Prompt: prompt,
			Public: slices.Contains(form["public"], row), Required: slices.Contains(form["required"], row),
		})
	}
	errs := models.ValidateTemplate(&in)
	if len(errs) == 0 {
		_, err = h.Store.CreateTemplate(c.Request().Context(), in)
		switch {
		case err == nil:
			return seeOther(c, "/admin/templates?saved=template")
		case errors.Is(err, models.ErrTemplateExists):
			errs.Add("name", "A template of this name exists already; choose another name.")
		default:
			return err
		}
	}
	view, err := h.templatesView(c)
	if err != nil {
		return err
	}
	view.New, view.Errors = in, errs
	return render(c, http.StatusUnprocessableEntity, templates.TemplatesPage(view))
}
