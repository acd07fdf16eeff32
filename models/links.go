package models

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"
)

// EntityLink names incident links in history.
const EntityLink = "incident_link"

// IncidentLink says how one incident relates to another.
type IncidentLink struct {
	ID        int64
	FromID    int64
	ToID      int64
	Kind      string
	CreatedAt time.Time
}

// LinkedIncident is a link seen from one end: the kind, the other incident, and which way it points.
type LinkedIncident struct {
	LinkID    int64
	Kind      string
	Outgoing  bool // true: this incident → other; false: other → this incident
	OtherID   int64
	Title     string
	StartedAt *time.Time
	Status    string
}

// addLink validates and inserts one link inside a transaction.
func addLink(tx *gorm.DB, c *changes, fromID int64, in LinkInput, field string) (*IncidentLink, error) {
	if in.IncidentID == fromID {
		return nil, FieldErrors{{Field: field, Message: "An incident cannot be linked to itself."}}
	}
	var n int64
	if err := tx.Model(&Incident{}).Where("id = ?", in.IncidentID).Count(&n).Error; err != nil {
		return nil, fmt.Errorf("find incident %d: %w", in.IncidentID, err)
	}
	if n == 0 {
		return nil, FieldErrors{{Field: field, Message: fmt.Sprintf("There is no incident #%d.", in.IncidentID)}}
	}
	link := IncidentLink{FromID: fromID, ToID: in.IncidentID, Kind: in.Kind}
	c.incident(fromID, in.IncidentID)
	if err := tx.Create(&link).Error; err != nil {
		if errors.Is(err, gorm.ErrDuplicatedKey) {
			return nil, FieldErrors{{Field: field, Message: fmt.Sprintf("This incident is already linked to #%d that way.", in.IncidentID)}}
		}
		return nil, fmt.Errorf("add link: %w", err)
	}
	after := fields{"kind": link.Kind, "to_id": link.ToID}
	return &link, audit(tx, ActionCreate, EntityLink, link.ID, fromID, nil, after)
}

// AddLink links an incident to another. A link to itself, to a missing incident or one that
// exists already is refused with a FieldErrors naming incident_id.
func (s *Store) AddLink(ctx context.Context, fromID int64, in LinkInput) (*IncidentLink, error) {
	var link *IncidentLink
	err := s.withIncident(ctx, fromID, false, func(tx *gorm.DB, c *changes) (err error) {
		link, err = addLink(tx, c, fromID, in, "incident_id")
		return err
	})
	return link, err
}

// DeleteLink removes a link that starts or ends at the incident.
func (s *Store) DeleteLink(ctx context.Context, incidentID, linkID int64) error {
	return s.withIncident(ctx, incidentID, false, func(tx *gorm.DB, c *changes) error {
		var link IncidentLink
		err := tx.Where("id = ? AND (from_id = ? OR to_id = ?)", linkID, incidentID, incidentID).First(&link).Error
		if err != nil {
			return notFound(err, fmt.Sprintf("link %d", linkID))
		}
		if err := tx.Delete(&IncidentLink{}, linkID).Error; err != nil {
			return fmt.Errorf("delete link %d: %w", linkID, err)
		}
		c.incident(link.FromID, link.ToID)
		return audit(tx, ActionDelete, EntityLink, linkID, link.FromID, fields{"kind": link.Kind, "to_id": link.ToID}, nil)
	})
}

// replaceLinks swaps the incident's outgoing links for the given ones.
func replaceOutgoingLinks(tx *gorm.DB, c *changes, fromID int64, links []LinkInput) error {
	var old []IncidentLink
	if err := tx.Where("from_id = ?", fromID).Find(&old).Error; err != nil {
		return fmt.Errorf("load links: %w", err)
	}
	for _, l := range old {
		if err := tx.Delete(&IncidentLink{}, l.ID).Error; err != nil {
			return fmt.Errorf("delete link %d: %w", l.ID, err)
		}
		c.incident(l.FromID, l.ToID)
		if err := audit(tx, ActionDelete, EntityLink, l.ID, fromID, fields{"kind": l.Kind, "to_id": l.ToID}, nil); err != nil {
			return err
		}
	}
	for n, in := range links {
		if _, err := addLink(tx, c, fromID, in, fmt.Sprintf("links[%d].incident_id", n)); err != nil {
			return err
		}
	}
	return nil
}

// linksJSON is the SQL for an incident's links from both ends, with the other live incident's
// title, start and status, as one JSON array: read in the incident row's statement. LinksFor
// reads the same for many incidents at once.
func (s *Store) linksJSON() string {
	started := "o.started_at"
	object, array := "json_object", "json_group_array"
	if s.dialect == "postgres" {
		started = `to_char(o.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
		object, array = "json_build_object", "json_agg"
	}
	fields := func(out string) string {
		return object + "('id', l.id, 'kind', l.kind, 'out', " + out + ", 'other', o.id, 'title', o.title, 'started', " +
			started + ", 'status', o.status)"
	}
	both := `SELECT ` + fields("1") + ` AS link FROM incident_links l JOIN incidents o ON o.id = l.to_id AND o.deleted_at IS NULL
			WHERE l.from_id = incidents.id
		UNION ALL SELECT ` + fields("0") + ` FROM incident_links l JOIN incidents o ON o.id = l.from_id AND o.deleted_at IS NULL
			WHERE l.to_id = incidents.id`
	if s.dialect == "postgres" {
		return `(SELECT COALESCE(` + array + `(link)::text, '') FROM (` + both + `) AS links)`
	}
	return `(SELECT COALESCE(` + array + `(json(link)), '') FROM (` + both + `))`
}

type linkJSON struct {
	ID      int64  `json:"id"`
	Kind    string `json:"kind"`
	Out     int    `json:"out"`
	Other   int64  `json:"other"`
	Title   string `json:"title"`
	Started string `json:"started"`
	Status  string `json:"status"`
}

func parseLinksJSON(incidentID int64, raw string) ([]LinkedIncident, error) {
	if raw == "" || raw == "[]" {
		return nil, nil
	}
	var list []linkJSON
	if err := json.Unmarshal([]byte(raw), &list); err != nil {
		return nil, fmt.Errorf("read links of incident %d: %w", incidentID, err)
	}
	out := make([]LinkedIncident, len(list))
	for n, l := range list {
		out[n] = LinkedIncident{LinkID: l.ID, Kind: l.Kind, Outgoing: l.Out == 1, OtherID: l.Other, Title: l.Title, Status: l.Status}
		if l.Started == "" {
			continue
		}
		// SQLite hands the column back as the driver wrote it, PostgreSQL as linksJSON's to_char.
		at, err := parseStoredTime(l.Started)
		if err != nil {
			return nil, fmt.Errorf("read links of incident %d: %w", incidentID, err)
		}
		out[n].StartedAt = &at
	}
	slices.SortFunc(out, func(a, b LinkedIncident) int { return cmp.Compare(a.LinkID, b.LinkID) })
	return out, nil
}

// Links lists an incident's links from both ends, with the other incident's title.
func (s *Store) Links(ctx context.Context, incidentID int64) ([]LinkedIncident, error) {
	byIncident, err := s.LinksFor(ctx, []int64{incidentID})
	return byIncident[incidentID], err
}

// LinksFor loads the links of many incidents in one query, keyed by incident.
func (s *Store) LinksFor(ctx context.Context, ids []int64) (map[int64][]LinkedIncident, error) {
	out := map[int64][]LinkedIncident{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []struct {
		ID, OwnerID, OtherID int64
		Outgoing             bool
		Kind                 string
		OtherTitle           string
		OtherStarted         *time.Time
		OtherStatus          string
	}
	err := s.read.WithContext(ctx).Raw(`
		SELECT l.id, l.from_id AS owner_id, l.to_id AS other_id, TRUE AS outgoing, l.kind,
			o.title AS other_title, o.started_at AS other_started, o.status AS other_status
		FROM incident_links l JOIN incidents o ON o.id = l.to_id AND o.deleted_at IS NULL
		WHERE l.from_id IN ?
		UNION ALL
		SELECT l.id, l.to_id, l.from_id, FALSE, l.kind, o.title, o.started_at, o.status
		FROM incident_links l JOIN incidents o ON o.id = l.from_id AND o.deleted_at IS NULL
		WHERE l.to_id IN ?
		ORDER BY 1`, ids, ids).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("load links: %w", err)
	}
	for _, r := range rows {
		out[r.OwnerID] = append(out[r.OwnerID], LinkedIncident{
			LinkID: r.ID, Kind: r.Kind, Outgoing: r.Outgoing, OtherID: r.OtherID,
			Title: r.OtherTitle, StartedAt: r.OtherStarted, Status: r.OtherStatus,
		})
	}
	return out, nil
}
