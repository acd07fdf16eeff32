package statuspage

import (
	"slices"
	"strconv"
	"time"

	"hindsight/models"
	"hindsight/models/mdexport"
)

// ExportIncident writes one incident in Statuspage's shape, for a status page API. It carries
// only what the public may see: public status updates, and the postmortem once it is published.
// Which incidents are public is the caller's choice. Ids are Hindsight's: the incident's, each
// update's timeline event and each component's service.
func ExportIncident(inc *models.Incident, page Page) Incident {
	id := strconv.FormatInt(inc.ID, 10)
	out := Incident{
		ID:         id,
		Name:       inc.Title,
		Status:     inc.Status,
		Impact:     Impact(inc),
		CreatedAt:  inc.CreatedAt.UTC(),
		UpdatedAt:  inc.UpdatedAt.UTC(),
		StartedAt:  utc(inc.StartedAt),
		PageID:     page.ID,
		Components: []Component{},
	}
	if out.StartedAt == nil {
		out.StartedAt = utc(&inc.CreatedAt)
	}
	if inc.Status == "resolved" {
		out.ResolvedAt = utc(inc.ResolvedAt)
	}
	if inc.PostmortemState == "published" {
		if inc.Status == "resolved" {
			out.Status = "postmortem" // what Statuspage shows once the write-up is out
		}
		out.PostmortemBody = mdexport.PublicBody(inc)
		out.PostmortemPublishedAt = utc(inc.PublishedAt)
	}

	services := inc.ServiceNames()
	previous := make([]string, len(services))
	for n := range previous {
		previous[n] = ComponentOperational
	}
	var updates []IncidentUpdate
	for _, ev := range inc.Timeline {
		if !ev.Public || ev.Kind != "status_update" {
			continue
		}
		at := ev.At.UTC()
		if ev.Status == "monitoring" && out.MonitoringAt == nil {
			out.MonitoringAt = &at
		}
		updated := ev.UpdatedAt.UTC()
		if updated.Before(at) {
			updated = at
		}
		u := IncidentUpdate{
			ID: strconv.FormatInt(ev.ID, 10), Status: ev.Status, Body: ev.Body, IncidentID: id,
			CreatedAt: at, UpdatedAt: updated, DisplayAt: at,
		}
		for n, name := range services {
			now := componentStatus(inc, name, at, false)
			if previous[n] != ComponentOperational || now != ComponentOperational {
				u.AffectedComponents = append(u.AffectedComponents, AffectedComponent{
					Code: componentID(inc, name), Name: name, OldStatus: previous[n], NewStatus: now,
				})
			}
			previous[n] = now
		}
		updates = append(updates, u)
	}
	slices.Reverse(updates) // Statuspage lists updates newest first
	out.IncidentUpdates = updates
	if out.IncidentUpdates == nil {
		out.IncidentUpdates = []IncidentUpdate{}
	}

	for n, sv := range inc.Services {
		status := ComponentOperational
		if inc.Status != "resolved" {
			status = componentStatus(inc, sv.Name, time.Time{}, true)
		}
		out.Components = append(out.Components, Component{
			ID: strconv.FormatInt(sv.ID, 10), Name: sv.Name, Status: status,
			CreatedAt: utc(&sv.CreatedAt), UpdatedAt: utc(&inc.UpdatedAt),
			Position: n + 1, PageID: page.ID,
		})
	}
	return out
}

// ExportDocument writes an incidents.json document; Statuspage lists incidents newest first, and
// so should the caller's slice.
func ExportDocument(incidents []models.Incident, page Page) Document {
	doc := Document{Page: page, Incidents: make([]Incident, len(incidents))}
	for n := range incidents {
		doc.Incidents[n] = ExportIncident(&incidents[n], page)
	}
	return doc
}

// componentStatus is a service's status at an instant: the worst level of the impact windows that
// cover it and name the service (a window naming no service covers them all). With current set it
// is the status now: the worst level of the windows that have not ended.
func componentStatus(inc *models.Incident, service string, at time.Time, current bool) string {
	worst := ""
	for _, w := range inc.ImpactWindows {
		names := w.ServiceNames()
		if len(names) > 0 && !slices.Contains(names, service) {
			continue
		}
		end := models.WindowEnd(w, inc)
		covers := end == nil
		if !current {
			covers = !at.Before(w.StartedAt) && (end == nil || at.Before(*end))
		}
		if covers && levelRank[w.Level] > levelRank[worst] {
			worst = w.Level
		}
	}
	if worst == "" {
		return ComponentOperational
	}
	return levelComponent[worst]
}

func componentID(inc *models.Incident, name string) string {
	for _, sv := range inc.Services {
		if sv.Name == name {
			return strconv.FormatInt(sv.ID, 10)
		}
	}
	return ""
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
