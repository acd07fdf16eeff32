package handlers

import (
	"context"
	"net/url"

	"hindsight/models"
	"hindsight/templates"
)

// eventForms is the timeline entry's add and edit form.
func (h *Handlers) eventForms() childForm[templates.EventFormValues, models.EventInput] {
	return childForm[templates.EventFormValues, models.EventInput]{
		parse: func(form url.Values) (templates.EventFormValues, models.EventInput, models.FieldErrors) {
			values, in, errs := eventForm(form)
			return values, in, mergeErrors(errs, models.ValidateEvent(in))
		},
		save: func(ctx context.Context, incidentID, id int64, in models.EventInput) (int64, error) {
			if id != 0 {
				return id, h.Store.UpdateEvent(ctx, incidentID, id, in)
			}
			ev, err := h.Store.CreateEvent(ctx, incidentID, in)
			if err != nil {
				return 0, err
			}
			return ev.ID, nil
		},
		place: func(v *templates.IncidentView, f templates.ChildForm[templates.EventFormValues]) {
			if f.ID != 0 {
				v.EditEvent = f
				return
			}
			v.NewEvent, v.Open = f, "timeline"
		},
		anchor: "event", section: "timeline", what: "timeline entry",
	}
}

// newEventValues is the empty add form of a timeline entry: a status update in the incident's
// zone, internal until someone ticks "Shown to customers" (DESIGN §5, public by choice), posting
// the status the latest status update posted (Incident.StatusBefore), since the entry's time is
// typed in the same form; static/forms.js adjusts it to the typed time where it can.
func newEventValues(inc *models.Incident) templates.EventFormValues {
	return templates.EventFormValues{
		TimeZone: inc.Location().String(), Kind: "status_update", Status: inc.StatusBefore(nil), Public: false,
	}
}

// windowForms is the impact window's add and edit form.
func (h *Handlers) windowForms() childForm[templates.WindowFormValues, models.WindowInput] {
	return childForm[templates.WindowFormValues, models.WindowInput]{
		parse: windowForm,
		save: func(ctx context.Context, incidentID, id int64, in models.WindowInput) (int64, error) {
			if id != 0 {
				return id, h.Store.UpdateWindow(ctx, incidentID, id, in)
			}
			w, err := h.Store.CreateWindow(ctx, incidentID, in)
			if err != nil {
				return 0, err
			}
			return w.ID, nil
		},
		place: func(v *templates.IncidentView, f templates.ChildForm[templates.WindowFormValues]) {
			if f.ID != 0 {
				v.EditWindow = f
				return
			}
			v.NewWindow, v.Open = f, "windows"
		},
		anchor: "window", section: "windows", what: "impact window",
	}
}
