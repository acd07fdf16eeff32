package statuspage

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"hindsight/models"
	"hindsight/models/mdexport"
)

// PageID is the id Hindsight's status page gives itself in the "page" objects it writes.
const PageID = "hindsight"

// PageInfo describes a status page as Statuspage's "page" object does, at the given address.
func PageInfo(settings models.StatusSettings, url string, updated *time.Time) Page {
	return Page{ID: PageID, Name: settings.Name, URL: url, TimeZone: settings.TimeZone, UpdatedAt: AtPtr(updated)}
}

// ExportIncident writes one incident in Statuspage's shape, for a status page API. It carries
// only what the public may see: public status updates, and the postmortem once it is published.
// Which incidents are public is the caller's choice; the texts' images point at the page's
// address (page.URL + /images/ID). Ids are Hindsight's: the incident's, each
// update's timeline event and each component's service. What an import kept of the source
// (details) is written back as the source had it: its shortlink and reminder intervals, each
// update's notification flag, display time and affected components; the zero details write
// Hindsight's own.
func ExportIncident(inc *models.Incident, page Page, details models.StatuspageDetails) Incident {
	id := strconv.FormatInt(inc.ID, 10)
	out := Incident{
		ID:         id,
		Name:       inc.Title,
		Status:     inc.Status,
		Impact:     Impact(inc),
		CreatedAt:  At(inc.CreatedAt),
		UpdatedAt:  At(inc.UpdatedAt),
		StartedAt:  AtPtr(inc.StartedAt),
		Shortlink:  page.URL + "/incidents/" + id,
		PageID:     page.ID,
		Components: []Component{},
	}
	if d, ok := details.Incidents[inc.ID]; ok {
		if d.Shortlink != "" {
			out.Shortlink = d.Shortlink
		}
		if d.ReminderIntervals != nil {
			out.ReminderIntervals = json.RawMessage(*d.ReminderIntervals)
		}
	}
	if out.StartedAt == nil {
		out.StartedAt = AtPtr(&inc.CreatedAt)
	}
	if inc.Status == "resolved" {
		out.ResolvedAt = AtPtr(inc.ResolvedAt)
	}
	if inc.PostmortemState == "published" {
		if inc.Status == "resolved" {
			out.Status = "postmortem" // what Statuspage shows once the write-up is out
		}
		out.PostmortemBody = publicText(mdexport.PublicBody(inc), page)
		out.PostmortemPublishedAt = AtPtr(inc.PublishedAt)
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
			out.MonitoringAt = AtPtr(&at)
		}
		created := ev.CreatedAt.UTC()
		if ev.CreatedAt.IsZero() {
			created = at
		}
		updated := ev.UpdatedAt.UTC()
		if updated.Before(created) {
			updated = created
		}
		u := IncidentUpdate{
			ID: strconv.FormatInt(ev.ID, 10), Status: ev.Status, Body: publicText(ev.Body, page), IncidentID: id,
			CreatedAt: At(created), UpdatedAt: At(updated), DisplayAt: At(at), DeliverNotifications: true,
		}
		var computed []AffectedComponent
		for n, name := range services {
			now := componentStatus(inc, name, at, false)
			if previous[n] != ComponentOperational || now != ComponentOperational {
				computed = append(computed, AffectedComponent{
					Code: componentID(inc, name), Name: name, OldStatus: previous[n], NewStatus: now,
				})
			}
			previous[n] = now
		}
		u.AffectedComponents = computed
		if d, ok := details.Updates[ev.ID]; ok {
			u.DeliverNotifications = d.DeliverNotifications
			if d.DisplayAt != nil && d.DisplayAt.Truncate(time.Second).Equal(at) {
				u.DisplayAt = At(*d.DisplayAt)
			}
			u.AffectedComponents = nil // the source's null stays null
			if d.AffectedComponents != nil {
				var kept []AffectedComponent
				if err := json.Unmarshal([]byte(*d.AffectedComponents), &kept); err == nil {
					u.AffectedComponents = kept
				} else {
					u.AffectedComponents = computed
				}
			}
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
			CreatedAt: AtPtr(&sv.CreatedAt), UpdatedAt: AtPtr(&inc.UpdatedAt),
			Position: n + 1, PageID: page.ID,
		})
	}
	return out
}

// publicText is public Markdown as a Statuspage client reads it: its images at the status page's
// absolute address, which serves only images public text refers to, never the app's route.
func publicText(markdown string, page Page) string { return models.ImageLinks(markdown, page.URL) }

// ExportDocument writes an incidents.json document; Statuspage lists incidents newest first, and
// so should the caller's slice.
func ExportDocument(incidents []models.Incident, page Page, details models.StatuspageDetails) Document {
	doc := Document{Page: page, Incidents: make([]Incident, len(incidents))}
	for n := range incidents {
		doc.Incidents[n] = ExportIncident(&incidents[n], page, details)
	}
	return doc
}

// PublishedPostmortem is the postmortem the public sees for an incident: the version recorded
// at its last publication, while it is published; ok is false otherwise.
func PublishedPostmortem(inc *models.Incident, versions map[int64]*models.PostmortemVersion, loc *time.Location) (markdown string, v *models.PostmortemVersion, ok bool, err error) {
	v = versions[inc.ID]
	if inc.PostmortemState != models.PostmortemPublished || v == nil {
		return "", nil, false, nil
	}
	public, err := v.Public()
	if err != nil {
		return "", nil, false, err
	}
	return mdexport.Published(public, loc), v, true, nil
}

// LatestPostmortems loads the published versions of the published incidents among these.
func LatestPostmortems(ctx context.Context, store *models.Store, incidents []models.Incident) (map[int64]*models.PostmortemVersion, error) {
	var ids []int64
	for _, inc := range incidents {
		if inc.PostmortemState == models.PostmortemPublished {
			ids = append(ids, inc.ID)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	return store.LatestPostmortems(ctx, ids)
}

// ExportPublic writes public incidents in Statuspage's shape, as the status page's API and
// `hindsight export statuspage` both do: each postmortem the version last published, never the
// live text, and what an import kept of the source written back. Which incidents are public is
// the caller's choice (the store's public queries).
func ExportPublic(ctx context.Context, store *models.Store, incidents []models.Incident, page Page, loc *time.Location) ([]Incident, error) {
	versions, err := LatestPostmortems(ctx, store, incidents)
	if err != nil {
		return nil, err
	}
	details, err := store.StatuspageDetails(ctx, incidents)
	if err != nil {
		return nil, err
	}
	out := make([]Incident, len(incidents))
	for n := range incidents {
		inc := &incidents[n]
		sp := ExportIncident(inc, page, details)
		sp.PostmortemBody, sp.PostmortemPublishedAt = "", nil
		markdown, v, ok, err := PublishedPostmortem(inc, versions, loc)
		if err != nil {
			return nil, err
		}
		if ok {
			sp.PostmortemBody, sp.PostmortemPublishedAt = publicText(markdown, page), AtPtr(&v.PublishedAt)
		} else if sp.Status == "postmortem" {
			sp.Status = "resolved"
		}
		out[n] = sp
	}
	return out, nil
}

// historyBatch is how many incidents ExportHistory reads at a time.
const historyBatch = 200

// ExportHistory writes the whole public history as an incidents.json document, newest first:
// every public incident, as the status page's API shows each one.
func ExportHistory(ctx context.Context, store *models.Store, page Page, loc *time.Location) (Document, error) {
	doc := Document{Page: page, Incidents: []Incident{}}
	for offset := 0; ; offset += historyBatch {
		list, total, err := store.PublicIncidents(ctx, models.PublicFilter{Limit: historyBatch, Offset: offset})
		if err != nil {
			return doc, err
		}
		exported, err := ExportPublic(ctx, store, list, page, loc)
		if err != nil {
			return doc, err
		}
		doc.Incidents = append(doc.Incidents, exported...)
		if len(list) < historyBatch || int64(offset+len(list)) >= total {
			return doc, nil
		}
	}
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
