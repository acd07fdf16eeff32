package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// PostmortemPublished is the postmortem state in which the public sees the postmortem.
const PostmortemPublished = "published"

// PublicPostmortem is the public version of a postmortem: the reviewed subset a status page may
// show, copied when it is published so that nothing written afterwards reaches the public until
// someone publishes again. What it holds is the whole of what is public about a postmortem:
//
//   - the title, the summary and the affected services and regions;
//   - the start of customer impact, detection, mitigation and resolution, for the figures;
//   - the time of the first public status update, for the same reason;
//   - customer impact, root cause, detection and response;
//   - the impact windows' times, levels and services, without their notes;
//   - the follow-ups' titles and statuses, except those dropped as won't do;
//   - the template's extra sections marked public that have text.
//
// The trigger, the lessons, the detection method, the acknowledgement, internal timeline entries,
// the notes of impact windows, and the follow-ups' descriptions, owners, dates and verification
// stay inside.
type PublicPostmortem struct {
	Title             string           `json:"title"`
	Summary           string           `json:"summary"`
	Severity          string           `json:"severity"`
	TimeZone          string           `json:"time_zone"`
	Services          []string         `json:"services"`
	Regions           []string         `json:"regions"`
	StartedAt         *time.Time       `json:"started_at"`
	DetectedAt        *time.Time       `json:"detected_at"`
	MitigatedAt       *time.Time       `json:"mitigated_at"`
	ResolvedAt        *time.Time       `json:"resolved_at"`
	FirstPublicUpdate *time.Time       `json:"first_public_update"`
	CustomerImpact    string           `json:"customer_impact"`
	RootCause         string           `json:"root_cause"`
	Detection         string           `json:"detection"`
	Response          string           `json:"response"`
	ImpactWindows     []PublicWindow   `json:"impact_windows"`
	FollowUps         []PublicFollowUp `json:"follow_ups"`
	// Sections are the template's sections marked public, in order; absent when there are none,
	// so versions published before templates compare equal.
	Sections []PublicSection `json:"sections,omitempty"`
}

// PublicSection is an extra section of a template that is marked public.
type PublicSection struct {
	Slug    string `json:"slug"`
	Heading string `json:"heading"`
	Body    string `json:"body"`
}

// PublicWindow is an impact window as the public sees it: no note.
type PublicWindow struct {
	StartedAt time.Time  `json:"started_at"`
	EndedAt   *time.Time `json:"ended_at"`
	Level     string     `json:"level"`
	Services  []string   `json:"services"`
}

// PublicFollowUp is a follow-up as the public sees it: what will be done, and whether it is.
type PublicFollowUp struct {
	Title  string `json:"title"`
	Status string `json:"status"`
}

// PublicVersionOf takes the public subset of an incident as it stands now. The incident's
// timeline, impact windows and follow-ups must be loaded.
func PublicVersionOf(inc *Incident) PublicPostmortem {
	p := PublicPostmortem{
		Title: inc.Title, Summary: inc.Summary, Severity: inc.Severity, TimeZone: inc.TimeZone,
		Services: nonNilNames(inc.ServiceNames()), Regions: nonNilNames(inc.RegionNames()),
		StartedAt: utc(inc.StartedAt), DetectedAt: utc(inc.DetectedAt), MitigatedAt: utc(inc.MitigatedAt),
		ResolvedAt:     utc(inc.ResolvedAt),
		CustomerImpact: inc.CustomerImpact, RootCause: inc.RootCause, Detection: inc.Detection, Response: inc.Response,
		ImpactWindows: []PublicWindow{}, FollowUps: []PublicFollowUp{},
	}
	p.FirstPublicUpdate = utc(ComputeMetrics(inc).FirstPublicUpdate)
	for _, w := range inc.ImpactWindows {
		p.ImpactWindows = append(p.ImpactWindows, PublicWindow{
			StartedAt: w.StartedAt.UTC(), EndedAt: utc(w.EndedAt), Level: w.Level, Services: nonNilNames(w.ServiceNames()),
		})
	}
	for _, f := range inc.FollowUps {
		if f.Status != "wont_do" { // a promise dropped is not one to make in public
			p.FollowUps = append(p.FollowUps, PublicFollowUp{Title: f.Title, Status: f.Status})
		}
	}
	for _, sec := range inc.Sections {
		if sec.Public && strings.TrimSpace(sec.Body) != "" {
			p.Sections = append(p.Sections, PublicSection{Slug: sec.Slug, Heading: sec.Heading, Body: sec.Body})
		}
	}
	return p
}

// Incident rebuilds an incident that holds the public version's fields and nothing else, so the
// figures are computed the one way they are everywhere.
func (p PublicPostmortem) Incident() *Incident {
	inc := &Incident{
		Title: p.Title, Summary: p.Summary, Severity: p.Severity, TimeZone: p.TimeZone,
		StartedAt: p.StartedAt, DetectedAt: p.DetectedAt, MitigatedAt: p.MitigatedAt, ResolvedAt: p.ResolvedAt,
		CustomerImpact: p.CustomerImpact, RootCause: p.RootCause, Detection: p.Detection, Response: p.Response,
	}
	for _, name := range p.Services {
		inc.Services = append(inc.Services, Service{Name: name})
	}
	for _, name := range p.Regions {
		inc.Regions = append(inc.Regions, Region{Name: name})
	}
	if p.FirstPublicUpdate != nil {
		inc.Timeline = []TimelineEvent{{At: *p.FirstPublicUpdate, Kind: "status_update", Public: true}}
	}
	for _, w := range p.ImpactWindows {
		win := ImpactWindow{StartedAt: w.StartedAt, EndedAt: w.EndedAt, Level: w.Level}
		for _, name := range w.Services {
			win.Services = append(win.Services, Service{Name: name})
		}
		inc.ImpactWindows = append(inc.ImpactWindows, win)
	}
	return inc
}

// Equal tells whether two public versions say the same thing.
func (p PublicPostmortem) Equal(other PublicPostmortem) bool {
	a, errA := json.Marshal(p)
	b, errB := json.Marshal(other)
	return errA == nil && errB == nil && string(a) == string(b)
}

// PostmortemVersion is one publication of a postmortem, kept for good.
type PostmortemVersion struct {
	ID            int64
	IncidentID    int64
	Version       int
	Body          string // PublicPostmortem as JSON
	PublishedAt   time.Time
	PublishedByID *int64
	PublishedBy   string
}

// Public decodes the version's public postmortem.
func (v *PostmortemVersion) Public() (PublicPostmortem, error) {
	var p PublicPostmortem
	if err := json.Unmarshal([]byte(v.Body), &p); err != nil {
		return p, fmt.Errorf("decode postmortem version %d of incident %d: %w", v.Version, v.IncidentID, err)
	}
	return p, nil
}

// ErrInvalidState is returned for a postmortem state that is not one of PostmortemStates.
var ErrInvalidState = errors.New("not a postmortem state")

// SetPostmortemState moves an incident's postmortem to a state. Moving it to published records
// the public version as it stands (a new version when it differs from the last one published),
// which is what the status page shows from then on; publishing again while published does the
// same. version must be the incident's version the person saw, else ErrConflict, so that nobody
// publishes text they did not review. It returns the incident's new version.
func (s *Store) SetPostmortemState(ctx context.Context, id int64, version int, state string) (int, error) {
	return s.PublishOverFindings(ctx, id, version, state, nil)
}

// PublishOverride records why an admin published a postmortem the completeness check found
// things missing in: the reason, and the findings as they were.
type PublishOverride struct {
	Reason   string
	Findings []string
}

// PublishOverFindings is SetPostmortemState that, given an override, records its reason and the
// findings it overrode in the incident's history with the publication.
func (s *Store) PublishOverFindings(ctx context.Context, id int64, version int, state string, override *PublishOverride) (int, error) {
	if !validState(state) {
		return 0, fmt.Errorf("%q: %w", state, ErrInvalidState)
	}
	var next int
	err := s.inWrite(ctx, func(tx *gorm.DB, c *changes) error {
		c.row(id, false)
		inc, err := s.getIncident(tx, id)
		if err != nil {
			return err
		}
		c.watchLoaded(inc)
		if !inc.Public {
			c.leftOffStatusPage(id)
		}
		if version != inc.Version {
			return fmt.Errorf("incident %d is at version %d, not %d: %w", id, inc.Version, version, ErrConflict)
		}
		if state == inc.PostmortemState && state != PostmortemPublished {
			next = inc.Version
			return nil
		}
		before := fields{"postmortem_state": inc.PostmortemState, "published_at": timeField(inc.PublishedAt)}
		updates := map[string]any{"postmortem_state": state, "version": inc.Version + 1, "updated_at": time.Now().UTC()}
		after := fields{"postmortem_state": state, "published_at": timeField(inc.PublishedAt)}
		if state == PostmortemPublished {
			now := time.Now().UTC().Truncate(time.Second)
			inc.PublishedAt = &now
			v, created, err := s.recordPublication(tx, inc)
			if err != nil {
				return err
			}
			if !created && inc.PostmortemState == PostmortemPublished {
				next = inc.Version // nothing new to publish
				return nil
			}
			if created {
				before["published_version"], after["published_version"] = v.Version-1, v.Version
			}
			if created || inc.PostmortemState != PostmortemPublished {
				updates["published_at"] = now
				after["published_at"] = timeField(&now)
			}
		}
		res := tx.Model(&Incident{}).Where("id = ? AND version = ?", id, inc.Version).Updates(updates)
		if res.Error != nil {
			return fmt.Errorf("set postmortem state of incident %d: %w", id, res.Error)
		}
		if res.RowsAffected == 0 {
			return fmt.Errorf("incident %d changed meanwhile: %w", id, ErrConflict)
		}
		next = inc.Version + 1
		if override != nil && state == PostmortemPublished {
			before["published_over_findings"], after["published_over_findings"] = nil, override.Findings
			before["publish_anyway_reason"], after["publish_anyway_reason"] = nil, override.Reason
		}
		if err := audit(tx, ActionUpdate, EntityIncident, id, id, before, after); err != nil {
			return err
		}
		return s.postmortemStateSet(tx, inc, state, next) // webhook events: outbox.go
	})
	if err != nil {
		return 0, err
	}
	return next, nil
}

func validState(state string) bool {
	for _, s := range PostmortemStates {
		if s == state {
			return true
		}
	}
	return false
}

// recordPublication stores the incident's public version as a new postmortem version unless it
// says the same as the last one. It returns the version now current and whether it is new.
func (s *Store) recordPublication(tx *gorm.DB, inc *Incident) (*PostmortemVersion, bool, error) {
	public := PublicVersionOf(inc)
	var last PostmortemVersion
	err := tx.Where("incident_id = ?", inc.ID).Order("version DESC").Limit(1).Take(&last).Error
	switch {
	case errors.Is(err, gorm.ErrRecordNotFound):
	case err != nil:
		return nil, false, fmt.Errorf("last postmortem version of incident %d: %w", inc.ID, err)
	default:
		if prev, err := last.Public(); err == nil && prev.Equal(public) {
			return &last, false, nil
		}
	}
	body, err := json.Marshal(public)
	if err != nil {
		return nil, false, fmt.Errorf("encode postmortem: %w", err)
	}
	actor := actorFrom(tx.Statement.Context)
	v := PostmortemVersion{
		IncidentID: inc.ID, Version: last.Version + 1, Body: string(body),
		PublishedAt: time.Now().UTC().Truncate(time.Second), PublishedBy: actor.Label,
	}
	if inc.PublishedAt != nil {
		v.PublishedAt = inc.PublishedAt.UTC()
	}
	if actor.UserID != 0 {
		v.PublishedByID = &actor.UserID
	}
	// Several servers backfilling at once would race for the same number; the first one wins.
	res := tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "incident_id"}, {Name: "version"}}, DoNothing: true}).Create(&v)
	if res.Error != nil {
		return nil, false, fmt.Errorf("record postmortem version of incident %d: %w", inc.ID, res.Error)
	}
	return &v, res.RowsAffected > 0, nil
}

// publishedOnWrite records the public version of an incident a create, update or import has
// just left published when it was not before: publishing through the form, the API or an
// import, like the postmortem page, never leaves a published postmortem without the version the
// status page shows.
func (s *Store) publishedOnWrite(tx *gorm.DB, id int64, before string) error {
	if before == PostmortemPublished {
		return nil
	}
	var state []string
	if err := tx.Model(&Incident{}).Where("id = ?", id).Pluck("postmortem_state", &state).Error; err != nil {
		return fmt.Errorf("postmortem state of incident %d: %w", id, err)
	}
	if len(state) == 0 || state[0] != PostmortemPublished {
		return nil
	}
	inc, err := s.getIncident(tx, id)
	if err != nil {
		return err
	}
	_, created, err := s.recordPublication(tx, inc)
	if err != nil || !created {
		return err
	}
	return s.postmortemPublished(tx, inc) // webhook events: outbox.go
}

// backfillPublications records a version for each published postmortem that has none: those
// published before versions were kept.
func (s *Store) backfillPublications(ctx context.Context) error {
	var ids []int64
	err := s.read.WithContext(ctx).Model(&Incident{}).
		Where("postmortem_state = ? AND NOT EXISTS (SELECT 1 FROM postmortem_versions v WHERE v.incident_id = incidents.id)", PostmortemPublished).
		Order("id").Pluck("id", &ids).Error
	if err != nil {
		return fmt.Errorf("find unversioned postmortems: %w", err)
	}
	if len(ids) == 0 {
		return nil
	}
	ctx = WithActor(ctx, Actor{Label: "system (published before versions were kept)"})
	return s.inWrite(ctx, func(tx *gorm.DB, c *changes) error {
		c.incident(ids...)
		for _, id := range ids {
			if err := s.publishedOnWrite(tx, id, ""); err != nil {
				return err
			}
		}
		return nil
	})
}

// PostmortemVersions lists an incident's published versions, newest first.
func (s *Store) PostmortemVersions(ctx context.Context, incidentID int64) ([]PostmortemVersion, error) {
	var versions []PostmortemVersion
	err := s.read.WithContext(ctx).Where("incident_id = ?", incidentID).Order("version DESC").Find(&versions).Error
	if err != nil {
		return nil, fmt.Errorf("postmortem versions of incident %d: %w", incidentID, err)
	}
	return versions, nil
}

// LatestPostmortems returns the newest published version of each incident that has one, in one
// query whatever the number of incidents.
func (s *Store) LatestPostmortems(ctx context.Context, incidentIDs []int64) (map[int64]*PostmortemVersion, error) {
	out := map[int64]*PostmortemVersion{}
	for batch := range chunks(incidentIDs, importINBatch) {
		var versions []PostmortemVersion
		err := s.read.WithContext(ctx).
			Where("incident_id IN ? AND version = (SELECT MAX(v.version) FROM postmortem_versions v WHERE v.incident_id = postmortem_versions.incident_id)", batch).
			Find(&versions).Error
		if err != nil {
			return nil, fmt.Errorf("latest postmortem versions: %w", err)
		}
		for n := range versions {
			out[versions[n].IncidentID] = &versions[n]
		}
	}
	return out, nil
}

// PublicationOf reads whether an incident is on the status page and its postmortem state.
func (s *Store) PublicationOf(ctx context.Context, id int64) (Publication, error) {
	var rows []Publication
	if err := s.read.WithContext(ctx).Model(&Incident{}).Select("postmortem_state AS state", "public").Where("id = ? AND deleted_at IS NULL", id).Scan(&rows).Error; err != nil {
		return Publication{}, fmt.Errorf("publication of incident %d: %w", id, err)
	}
	if len(rows) == 0 {
		return Publication{}, fmt.Errorf("incident %d: %w", id, ErrNotFound)
	}
	return rows[0], nil
}

// Publication is what the public may see of an incident: whether it is on the status page, and
// its postmortem's state.
type Publication struct {
	State  string
	Public bool
}
