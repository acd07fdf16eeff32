package handlers

import (
	"context"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"hindsight/models"
	"hindsight/templates"
)

// ComponentList shows the status page's components and a form for a new one; ?edit= opens one
// component's form instead.
func (h *Handlers) ComponentList(c echo.Context) error {
	ctx := c.Request().Context()
	view, err := h.componentsView(ctx)
	if err != nil {
		return err
	}
	view.Saved = c.QueryParam("saved") == "1"
	view.Values = models.ComponentInput{Showcase: true, Position: len(view.Components) + 1}
	if id, _ := strconv.ParseInt(c.QueryParam("edit"), 10, 64); id != 0 {
		for _, comp := range view.Components {
			if comp.ID == id {
				view.EditID, view.Values = id, componentInput(comp)
			}
		}
		if view.EditID == 0 {
			return echo.NewHTTPError(http.StatusNotFound, "There is no such component.")
		}
	}
	return render(c, http.StatusOK, templates.ComponentsPage(view))
}

func (h *Handlers) componentsView(ctx context.Context) (templates.ComponentsView, error) {
	components, err := h.Store.ListComponents(ctx)
	if err != nil {
		return templates.ComponentsView{}, err
	}
	services, err := h.Store.ServiceNames(ctx)
	if err != nil {
		return templates.ComponentsView{}, err
	}
	view := templates.ComponentsView{Page: templates.Page{Title: "Status page components", Section: "admin"}, Components: components, Services: services}
	for _, comp := range components {
		if comp.IsGroup {
			view.Groups = append(view.Groups, comp)
		}
	}
	return view, nil
}

// componentInput is a stored component as its form's values.
func componentInput(c models.Component) models.ComponentInput {
	in := models.ComponentInput{
		Name: c.Name, Description: c.Description, IsGroup: c.IsGroup, Position: c.Position,
		OnlyShowIfDegraded: c.OnlyShowIfDegraded, Showcase: c.Showcase, Services: c.ServiceNames(),
	}
	if c.GroupID != nil {
		in.GroupID = *c.GroupID
	}
	if c.StartDate != nil {
		in.StartDate = *c.StartDate
	}
	return in
}
