package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// ComponentDeleteConfirm asks before a component is removed; it works without JavaScript.
func (h *Handlers) ComponentDeleteConfirm(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	comp, err := h.Store.Component(c.Request().Context(), id)
	if err != nil {
		return storeError(err, "component")
	}
	consequence := "The status page stops showing it. The services it covered and their incidents stay."
	if comp.IsGroup {
		consequence = "The status page stops showing the group; its components stay, at the top level."
	}
	return render(c, http.StatusOK, templates.ConfirmPage(templates.ConfirmView{
		Page: templates.Page{Title: "Remove " + comp.Name, Section: "admin"}, Question: "Remove the component " + comp.Name + "?",
		Consequence: consequence, Action: "/admin/components/" + itoa(id) + "/delete", Button: "Remove component", Cancel: "/admin/components",
	}))
}

// ComponentDelete removes a component.
func (h *Handlers) ComponentDelete(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if err := h.Store.DeleteComponent(c.Request().Context(), id); err != nil {
		return storeError(err, "component")
	}
	return c.Redirect(http.StatusSeeOther, "/admin/components?saved=1")
}
