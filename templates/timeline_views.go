package templates

import (
	"encoding/json"
	"time"

	"hindsight/models"
)

// PublicEntryTitle explains a timeline entry's Public badge.
func PublicEntryTitle(incidentPublic bool) string {
	if incidentPublic {
		return "Shown to customers: it is on the status page"
	}
	return "Shown to customers once the incident is made public"
}

// StatusUpdatesData lists the incident's status updates for static/forms.js, as
// [local time in the incident's zone, status] pairs in timeline order, so the add form can
// default "Status posted" to the status before the time typed (models.Incident.StatusBefore).
func StatusUpdatesData(inc *models.Incident, loc *time.Location) string {
	pairs := [][2]string{}
	for n := range inc.Timeline {
		ev := &inc.Timeline[n]
		if ev.Kind == "status_update" && ev.Status != "" {
			pairs = append(pairs, [2]string{LocalInput(&ev.At, loc), ev.Status})
		}
	}
	raw, _ := json.Marshal(pairs)
	return string(raw)
}
