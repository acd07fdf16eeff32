// Package native writes the whole database as one JSON document and reads it back into an empty
// database: a backup, and the way to move from SQLite to PostgreSQL. Every id, version and
// timestamp is kept, so an export of the restored database is byte for byte the export it came
// from. It holds the incidents with everything nested in them and their links, services,
// regions, the factor taxonomy, the published postmortem versions, the site settings and the
// history; accounts, sessions and API tokens stay out, since a file that travels should not
// carry password hashes: on the new database an admin sets up the accounts again.
package native

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"strings"
	"time"

	"hindsight/models"
)

// Format names the document; FormatVersion changes when a reader must change with it.
const (
	Format        = "hindsight"
	FormatVersion = 1
)

// Summary counts what an import wrote, or in a check would write.
type Summary struct {
	Services, Regions, Factors, Incidents, Events, Windows, FollowUps, Links, History int
	// Versions counts published postmortem versions, Settings the stored site settings.
	Versions, Settings int
}

// The document's shapes. Instants are UTC with microseconds, the precision both databases keep,
// so a SQLite export restored into PostgreSQL exports the same bytes.
type service struct {
	ID        int64     `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"created_at"`
}

type factor struct {
	ID          int64     `json:"id"`
	Slug        string    `json:"slug"`
	Name        string    `json:"name"`
	Description string    `json:"description,omitempty"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

type link struct {
	ID        int64     `json:"id"`
	ToID      int64     `json:"to_id"`
	Kind      string    `json:"kind"`
	CreatedAt time.Time `json:"created_at"`
}

type incident struct {
	ID              int64      `json:"id"`
	Title           string     `json:"title"`
	Summary         string     `json:"summary,omitempty"`
	Severity        string     `json:"severity"`
	Status          string     `json:"status"`
	DetectionMethod string     `json:"detection_method,omitempty"`
	CustomerImpact  string     `json:"customer_impact,omitempty"`
	RootCause       string     `json:"root_cause,omitempty"`
	Trigger         string     `json:"trigger,omitempty"`
	Detection       string     `json:"detection,omitempty"`
	Response        string     `json:"response,omitempty"`
	Lessons         string     `json:"lessons,omitempty"`
	TimeZone        string     `json:"time_zone"`
	TriggeredAt     *time.Time `json:"triggered_at,omitempty"`
	StartedAt       *time.Time `json:"started_at,omitempty"`
	DetectedAt      *time.Time `json:"detected_at,omitempty"`
	AcknowledgedAt  *time.Time `json:"acknowledged_at,omitempty"`
	MitigatedAt     *time.Time `json:"mitigated_at,omitempty"`
	ResolvedAt      *time.Time `json:"resolved_at,omitempty"`
	PostmortemState string     `json:"postmortem_state"`
	PublishedAt     *time.Time `json:"published_at,omitempty"`
	Public          bool       `json:"public"`
	Source          string     `json:"source,omitempty"`
	ExternalID      string     `json:"external_id,omitempty"`
	Version         int        `json:"version"`
	CreatedAt       time.Time  `json:"created_at"`
	UpdatedAt       time.Time  `json:"updated_at"`
	DeletedAt       *time.Time `json:"deleted_at,omitempty"`
	Services        []string   `json:"services"`
	Regions         []string   `json:"regions"`
	Factors         []string   `json:"factors"`
	Timeline        []event    `json:"timeline"`
	ImpactWindows   []window   `json:"impact_windows"`
	FollowUps       []followUp `json:"follow_ups"`
	// Links are the links from this incident to others.
	Links []link `json:"links"`
	// NearMiss, Template and Sections: a near miss had no customer impact; the template the
	// postmortem follows and its sections beyond the incident's own. Absent when unset.
	NearMiss bool                     `json:"near_miss,omitempty"`
	Template string                   `json:"template,omitempty"`
	Sections []models.IncidentSection `json:"sections,omitempty"`
	// PostmortemVersions are the published versions of its postmortem, oldest first. Absent
	// when there are none, and in exports made before versions were exported.
	PostmortemVersions []publication `json:"postmortem_versions,omitempty"`
}

// publication is one published version of a postmortem. Body is kept as the exact text stored
// (the public postmortem as JSON), so a restore writes back the same bytes.
type publication struct {
	ID            int64     `json:"id"`
	Version       int       `json:"version"`
	PublishedAt   time.Time `json:"published_at"`
	PublishedByID *int64    `json:"published_by_id,omitempty"`
	PublishedBy   string    `json:"published_by"`
	Body          string    `json:"body"`
}

// template is a postmortem template an admin wrote, with its sections; the built-in ones are
// not exported.
type template struct {
	Slug        string            `json:"slug"`
	Name        string            `json:"name"`
	Description string            `json:"description,omitempty"`
	CreatedAt   time.Time         `json:"created_at"`
	UpdatedAt   time.Time         `json:"updated_at"`
	Sections    []templateSection `json:"sections"`
}

type templateSection struct {
	Slug     string `json:"slug"`
	Heading  string `json:"heading"`
	Prompt   string `json:"prompt,omitempty"`
	Public   bool   `json:"public,omitempty"`
	Required bool   `json:"required,omitempty"`
}

// templateDefault is the template a severity starts with.
type templateDefault struct {
	Severity string `json:"severity"`
	Template string `json:"template"`
}

// setting is one stored site setting; settings never saved are absent and take their defaults.
type setting struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

type event struct {
	ID        int64     `json:"id"`
	At        time.Time `json:"at"`
	Kind      string    `json:"kind"`
	Status    string    `json:"status,omitempty"`
	Body      string    `json:"body,omitempty"`
	Public    bool      `json:"public"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

type window struct {
	ID        int64      `json:"id"`
	StartedAt time.Time  `json:"started_at"`
	EndedAt   *time.Time `json:"ended_at,omitempty"`
	Level     string     `json:"level"`
	Note      string     `json:"note,omitempty"`
	Services  []string   `json:"services"`
	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt time.Time  `json:"updated_at"`
}

type followUp struct {
	ID           int64      `json:"id"`
	Title        string     `json:"title"`
	Description  string     `json:"description,omitempty"`
	Kind         string     `json:"kind"`
	Priority     string     `json:"priority"`
	Owner        string     `json:"owner,omitempty"`
	DueOn        string     `json:"due_on,omitempty"` // a date, 2006-01-02
	Status       string     `json:"status"`
	DoneAt       *time.Time `json:"done_at,omitempty"`
	TrackerURL   string     `json:"tracker_url,omitempty"`
	Verification string     `json:"verification,omitempty"`
	Factors      []string   `json:"factors"`
	Version      int        `json:"version"`
	CreatedAt    time.Time  `json:"created_at"`
	UpdatedAt    time.Time  `json:"updated_at"`
}

type auditEntry struct {
	ID         int64     `json:"id"`
	At         time.Time `json:"at"`
	ActorID    *int64    `json:"actor_id,omitempty"`
	Actor      string    `json:"actor"`
	Action     string    `json:"action"`
	Entity     string    `json:"entity"`
	EntityID   int64     `json:"entity_id"`
	IncidentID *int64    `json:"incident_id,omitempty"`
	// Changes is kept as the exact text stored, so a restore writes back the same bytes.
	Changes string `json:"changes"`
}

func instant(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

func instantPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := instant(*t)
	return &u
}

// Export writes every incident, deleted ones included, with its nested records, and every
// service and region, ordered by id. It reads the incidents a batch at a time.
func Export(ctx context.Context, store *models.Store, w io.Writer) error {
	out := bufio.NewWriter(w)
	services, err := store.AllServices(ctx)
	if err != nil {
		return err
	}
	regions, err := store.AllRegions(ctx)
	if err != nil {
		return err
	}
	names := make([]service, 0, len(services))
	for _, sv := range services {
		names = append(names, service{sv.ID, sv.Name, instant(sv.CreatedAt)})
	}
	regionRows := make([]service, 0, len(regions))
	for _, r := range regions {
		regionRows = append(regionRows, service{r.ID, r.Name, instant(r.CreatedAt)})
	}
	factors, err := store.AllFactors(ctx)
	if err != nil {
		return err
	}
	factorRows := make([]factor, 0, len(factors))
	for _, f := range factors {
		factorRows = append(factorRows, factor{f.ID, f.Slug, f.Name, f.Description, instant(f.CreatedAt), instant(f.UpdatedAt)})
	}
	settings, err := store.AllSettings(ctx)
	if err != nil {
		return err
	}
	settingRows := make([]setting, 0, len(settings))
	for _, st := range settings {
		settingRows = append(settingRows, setting{st.Key, st.Value})
	}
	templates, defaults, err := exportTemplates(ctx, store)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "{\n  \"format\": %q,\n  \"format_version\": %d,\n", Format, FormatVersion)
	if err := writeList(out, "services", names, false); err != nil {
		return err
	}
	if err := writeList(out, "regions", regionRows, false); err != nil {
		return err
	}
	if err := writeList(out, "factors", factorRows, false); err != nil {
		return err
	}
	if err := writeList(out, "settings", settingRows, false); err != nil {
		return err
	}
	if err := writeList(out, "templates", templates, false); err != nil {
		return err
	}
	if err := writeList(out, "template_defaults", defaults, false); err != nil {
		return err
	}
	if err := writeImages(ctx, store, out); err != nil {
		return err
	}
	out.WriteString("  \"incidents\": [")
	first := true
	err = store.EachIncident(ctx, 200, func(batch []models.Incident) error {
		ids := make([]int64, len(batch))
		for n := range batch {
			ids[n] = batch[n].ID
		}
		links, err := store.OutgoingLinks(ctx, ids)
		if err != nil {
			return err
		}
		versions, err := store.PostmortemVersionsOf(ctx, ids)
		if err != nil {
			return err
		}
		for n := range batch {
			if !first {
				out.WriteString(",")
			}
			first = false
			row := fromModel(&batch[n])
			for _, l := range links[batch[n].ID] {
				row.Links = append(row.Links, link{l.ID, l.ToID, l.Kind, instant(l.CreatedAt)})
			}
			for _, v := range versions[batch[n].ID] {
				row.PostmortemVersions = append(row.PostmortemVersions, publication{v.ID, v.Version, instant(v.PublishedAt), v.PublishedByID, v.PublishedBy, v.Body})
			}
			if err := writeElement(out, row); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if !first {
		out.WriteString("\n  ")
	}
	out.WriteString("],\n  \"audit_entries\": [")
	first = true
	err = store.EachAuditEntry(ctx, 1000, func(batch []models.AuditEntry) error {
		for _, e := range batch {
			if !first {
				out.WriteString(",")
			}
			first = false
			entry := auditEntry{e.ID, instant(e.At), e.ActorID, e.Actor, e.Action, e.Entity, e.EntityID, e.IncidentID, e.Changes}
			if err := writeElement(out, entry); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if !first {
		out.WriteString("\n  ")
	}
	out.WriteString("]\n}\n")
	return out.Flush()
}

func writeList[T any](out *bufio.Writer, key string, list []T, last bool) error {
	fmt.Fprintf(out, "  %q: [", key)
	for n := range list {
		if n > 0 {
			out.WriteString(",")
		}
		if err := writeElement(out, list[n]); err != nil {
			return err
		}
	}
	if len(list) > 0 {
		out.WriteString("\n  ")
	}
	out.WriteString("]")
	if !last {
		out.WriteString(",")
	}
	out.WriteString("\n")
	return nil
}

func writeElement(out *bufio.Writer, v any) error {
	data, err := json.MarshalIndent(v, "    ", "  ")
	if err != nil {
		return err
	}
	out.WriteString("\n    ")
	_, err = out.Write(data)
	return err
}

func fromModel(inc *models.Incident) incident {
	out := incident{
		ID: inc.ID, Title: inc.Title, Summary: inc.Summary, Severity: inc.Severity, Status: inc.Status,
		DetectionMethod: inc.DetectionMethod, CustomerImpact: inc.CustomerImpact, RootCause: inc.RootCause,
		Trigger: inc.Trigger, Detection: inc.Detection, Response: inc.Response, Lessons: inc.Lessons,
		TimeZone:    inc.TimeZone,
		TriggeredAt: instantPtr(inc.TriggeredAt), StartedAt: instantPtr(inc.StartedAt),
		DetectedAt: instantPtr(inc.DetectedAt), AcknowledgedAt: instantPtr(inc.AcknowledgedAt),
		MitigatedAt: instantPtr(inc.MitigatedAt), ResolvedAt: instantPtr(inc.ResolvedAt),
		PostmortemState: inc.PostmortemState, PublishedAt: instantPtr(inc.PublishedAt), Public: inc.Public,
		Source: inc.Source, ExternalID: inc.ExternalID, Version: inc.Version,
		CreatedAt: instant(inc.CreatedAt), UpdatedAt: instant(inc.UpdatedAt),
		Services: inc.ServiceNames(), Regions: inc.RegionNames(), Factors: inc.FactorSlugs(),
		Timeline: []event{}, ImpactWindows: []window{}, FollowUps: []followUp{}, Links: []link{},
		NearMiss: inc.NearMiss, Template: inc.TemplateSlug, Sections: inc.Sections,
	}
	if inc.DeletedAt.Valid {
		out.DeletedAt = instantPtr(&inc.DeletedAt.Time)
	}
	for _, ev := range inc.Timeline {
		out.Timeline = append(out.Timeline, event{ev.ID, instant(ev.At), ev.Kind, ev.Status, ev.Body, ev.Public, instant(ev.CreatedAt), instant(ev.UpdatedAt)})
	}
	for _, w := range inc.ImpactWindows {
		out.ImpactWindows = append(out.ImpactWindows, window{w.ID, instant(w.StartedAt), instantPtr(w.EndedAt), w.Level, w.Note, w.ServiceNames(), instant(w.CreatedAt), instant(w.UpdatedAt)})
	}
	for _, f := range inc.FollowUps {
		row := followUp{
			ID: f.ID, Title: f.Title, Description: f.Description, Kind: f.Kind, Priority: f.Priority,
			Owner: f.Owner, Status: f.Status, DoneAt: instantPtr(f.DoneAt), TrackerURL: f.TrackerURL,
			Verification: f.Verification, Factors: f.FactorSlugs(), Version: f.Version,
			CreatedAt: instant(f.CreatedAt), UpdatedAt: instant(f.UpdatedAt),
		}
		if f.DueOn != nil {
			// A date is stored as midnight; read it back in the zone it came out in.
			row.DueOn = f.DueOn.Format(time.DateOnly)
		}
		out.FollowUps = append(out.FollowUps, row)
	}
	return out
}

// Import restores an export into an empty database, in one transaction: every record is checked
// as it is read, and a bad one stops the import with nothing written. name is the file's name,
// for messages.
func Import(ctx context.Context, store *models.Store, r io.Reader, name string) (Summary, error) {
	return read(ctx, store, r, name)
}

// Check reads and checks an export without writing anything, and counts what Import would write.
func Check(r io.Reader, name string) (Summary, error) {
	return read(context.Background(), nil, r, name)
}

// read walks the document. Services and regions come before the incidents, as Export writes
// them, so that incidents can be checked and written as they are read.
func read(ctx context.Context, store *models.Store, r io.Reader, name string) (Summary, error) {
	dec := json.NewDecoder(bufio.NewReader(r))
	var summary Summary
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s", name, fmt.Sprintf(format, args...))
	}
	if err := expectDelim(dec, '{'); err != nil {
		return summary, fail("not a Hindsight export: %v", err)
	}
	var format string
	var version int
	var services, regions []service
	var factors []factor
	var sawFactors bool
	ids := refs{services: map[string]int64{}, regions: map[string]int64{}, factors: map[string]int64{}}
	pub := &publishing{keys: map[string]bool{}}
	var restored models.Snapshot
	var images []models.IncidentImage
	sawIncidents := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return summary, fail("%v", err)
		}
		key, _ := tok.(string)
		switch key {
		case "format":
			err = dec.Decode(&format)
		case "format_version":
			err = dec.Decode(&version)
		case "services":
			err = decodeNames(dec, &services, ids.services, "services")
		case "regions":
			err = decodeNames(dec, &regions, ids.regions, "regions")
		case "factors":
			sawFactors = true
			err = decodeFactors(dec, &factors, ids.factors)
		case "settings":
			err = pub.decodeSettings(dec)
		case "templates":
			err = decodeTemplates(dec, &restored)
		case "template_defaults":
			err = decodeTemplateDefaults(dec, &restored)
		case "images":
			err = decodeImages(dec, &images)
		case "incidents":
			if format != Format {
				return summary, fail("not a Hindsight export: format is %q, want %q first", format, Format)
			}
			if version != FormatVersion {
				return summary, fail("format_version %d is not one this Hindsight reads (%d)", version, FormatVersion)
			}
			sawIncidents = true
			var links []models.IncidentLink
			snap := models.Snapshot{
				Services:  toServices(services),
				Regions:   toRegions(regions),
				Incidents: readIncidents(dec, name, ids, &links, pub, &summary),
				History:   readRest(dec, name, pub, &summary),
				Templates: restored.Templates, TemplateDefaults: restored.TemplateDefaults,
			}
			// The links are known once the incidents are read; the store reads them after.
			snap.Links = func(yield func(models.IncidentLink) bool) {
				for _, l := range links {
					if !yield(l) {
						return
					}
				}
			}
			if sawFactors {
				snap.Factors = toFactors(factors)
			}
			if store == nil {
				for _, err := range snap.Incidents {
					if err != nil {
						return summary, err
					}
				}
				for _, err := range snap.History {
					if err != nil {
						return summary, err
					}
				}
			} else {
				// The versions and settings are all read once the history is: they are written
				// after it, in the same transaction.
				counts, err := store.RestoreDatabaseWithPublishing(ctx, snap, func() ([]models.PostmortemVersion, []models.Setting, error) {
					return pub.versions, pub.settings, nil
				}, images...)
				if err != nil {
					return summary, err
				}
				summary = Summary{
					Services: counts.Services, Regions: counts.Regions, Factors: counts.Factors, Incidents: counts.Incidents,
					Events: counts.Events, Windows: counts.Windows, FollowUps: counts.FollowUps, Links: counts.Links, History: counts.History,
				}
			}
			summary.Services, summary.Regions, summary.Factors, summary.Links = len(services), len(regions), len(factors), len(links)
			summary.Versions, summary.Settings = len(pub.versions), len(pub.settings)
			// Whatever follows the incidents was read inside the sequences.
			return summary, nil
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			return summary, fail("%s: %v", key, err)
		}
	}
	if !sawIncidents {
		return summary, fail("not a Hindsight export: no incidents list")
	}
	return summary, nil
}

// readIncidents yields the incidents one at a time, checked.
func readIncidents(dec *json.Decoder, name string, ids refs, links *[]models.IncidentLink, pub *publishing, summary *Summary) iter.Seq2[*models.Incident, error] {
	return func(yield func(*models.Incident, error) bool) {
		if err := expectDelim(dec, '['); err != nil {
			yield(nil, fmt.Errorf("%s: incidents: %w", name, err))
			return
		}
		seen, seenVersions := map[int64]bool{}, map[int64]bool{}
		for n := 1; dec.More(); n++ {
			var in incident
			if err := dec.Decode(&in); err != nil {
				yield(nil, fmt.Errorf("%s: incident %d: %w", name, n, err))
				return
			}
			inc, errs := toModel(in, ids)
			if seen[in.ID] {
				errs.Add("id", fmt.Sprintf("The id %d appears twice.", in.ID))
			}
			seen[in.ID] = true
			for k, v := range in.PostmortemVersions {
				if seenVersions[v.ID] {
					errs.Add(fmt.Sprintf("postmortem_versions[%d].id", k), fmt.Sprintf("The postmortem version id %d appears twice.", v.ID))
				}
				seenVersions[v.ID] = true
			}
			if len(errs) > 0 {
				problems := make([]string, len(errs))
				for k, fe := range errs {
					problems[k] = fe.Field + ": " + fe.Message
				}
				yield(nil, fmt.Errorf("%s: incident %d (id %d): %s", name, n, in.ID, strings.Join(problems, "; ")))
				return
			}
			for _, l := range in.Links {
				*links = append(*links, models.IncidentLink{ID: l.ID, FromID: in.ID, ToID: l.ToID, Kind: l.Kind, CreatedAt: l.CreatedAt})
			}
			for _, v := range in.PostmortemVersions {
				pub.versions = append(pub.versions, models.PostmortemVersion{
					ID: v.ID, IncidentID: in.ID, Version: v.Version, Body: v.Body,
					PublishedAt: v.PublishedAt, PublishedByID: v.PublishedByID, PublishedBy: v.PublishedBy,
				})
			}
			summary.Incidents++
			summary.Events += len(inc.Timeline)
			summary.Windows += len(inc.ImpactWindows)
			summary.FollowUps += len(inc.FollowUps)
			if !yield(inc, nil) {
				return
			}
		}
		if err := expectDelim(dec, ']'); err != nil {
			yield(nil, fmt.Errorf("%s: incidents: %w", name, err))
			return
		}
		for _, l := range *links {
			if !seen[l.ToID] {
				yield(nil, fmt.Errorf("%s: link %d from incident %d: there is no incident %d in the document", name, l.ID, l.FromID, l.ToID))
				return
			}
		}
	}
}

// readRest reads what follows the incidents: it yields the history entries, checked, and reads
// the document to its end, so that anything wrong there also stops the import before it commits.
func readRest(dec *json.Decoder, name string, pub *publishing, summary *Summary) iter.Seq2[*models.AuditEntry, error] {
	return func(yield func(*models.AuditEntry, error) bool) {
		fail := func(err error) { yield(nil, fmt.Errorf("%s: %w", name, err)) }
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				fail(err)
				return
			}
			key, _ := tok.(string)
			if key == "settings" {
				if err := pub.decodeSettings(dec); err != nil {
					fail(fmt.Errorf("settings: %w", err))
					return
				}
				continue
			}
			if key != "audit_entries" {
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					fail(err)
					return
				}
				continue
			}
			if err := expectDelim(dec, '['); err != nil {
				fail(fmt.Errorf("audit_entries: %w", err))
				return
			}
			for n := 1; dec.More(); n++ {
				var e auditEntry
				if err := dec.Decode(&e); err != nil {
					fail(fmt.Errorf("audit entry %d: %w", n, err))
					return
				}
				if e.ID <= 0 || e.At.IsZero() || e.Entity == "" || !slices.Contains([]string{models.ActionCreate, models.ActionUpdate, models.ActionDelete}, e.Action) {
					fail(fmt.Errorf("audit entry %d (id %d): needs an id, a time, an entity and an action of create, update or delete", n, e.ID))
					return
				}
				summary.History++
				if !yield(&models.AuditEntry{ID: e.ID, At: e.At, ActorID: e.ActorID, Actor: e.Actor, Action: e.Action, Entity: e.Entity, EntityID: e.EntityID, IncidentID: e.IncidentID, Changes: e.Changes}, nil) {
					return
				}
			}
			if err := expectDelim(dec, ']'); err != nil {
				fail(fmt.Errorf("audit_entries: %w", err))
				return
			}
		}
		if err := expectDelim(dec, '}'); err != nil {
			fail(err)
			return
		}
		if _, err := dec.Token(); !errors.Is(err, io.EOF) {
			fail(errors.New("unexpected data after the document"))
		}
	}
}

// publishing gathers what is restored after the history: the incidents' published postmortem
// versions and the site settings.
type publishing struct {
	versions []models.PostmortemVersion
	settings []models.Setting
	keys     map[string]bool
}

func (p *publishing) decodeSettings(dec *json.Decoder) error {
	var rows []setting
	if err := dec.Decode(&rows); err != nil {
		return err
	}
	for _, row := range rows {
		if row.Key == "" {
			return fmt.Errorf("every setting needs a key")
		}
		if p.keys[row.Key] {
			return fmt.Errorf("setting %q appears twice", row.Key)
		}
		p.keys[row.Key] = true
		p.settings = append(p.settings, models.Setting{Key: row.Key, Value: row.Value})
	}
	return nil
}

// refs map the names and slugs incidents use to the ids of the document's lists.
type refs struct {
	services, regions, factors map[string]int64
}

func decodeFactors(dec *json.Decoder, into *[]factor, ids map[string]int64) error {
	if err := dec.Decode(into); err != nil {
		return err
	}
	seen := map[int64]bool{}
	for _, row := range *into {
		if row.ID <= 0 || row.Slug == "" || row.Name == "" {
			return fmt.Errorf("every factor needs an id, a slug and a name")
		}
		if seen[row.ID] || ids[row.Slug] != 0 {
			return fmt.Errorf("factor %q (id %d) appears twice", row.Slug, row.ID)
		}
		seen[row.ID], ids[row.Slug] = true, row.ID
	}
	return nil
}

func toFactors(rows []factor) []models.Factor {
	out := make([]models.Factor, len(rows))
	for n, r := range rows {
		out[n] = models.Factor{ID: r.ID, Slug: r.Slug, Name: r.Name, Description: r.Description, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
	}
	return out
}

func decodeNames(dec *json.Decoder, into *[]service, ids map[string]int64, what string) error {
	if err := dec.Decode(into); err != nil {
		return err
	}
	seen := map[int64]bool{}
	for _, row := range *into {
		if row.ID <= 0 || row.Name == "" {
			return fmt.Errorf("every entry needs an id and a name")
		}
		if seen[row.ID] || ids[row.Name] != 0 {
			return fmt.Errorf("%s %q (id %d) appears twice", what, row.Name, row.ID)
		}
		seen[row.ID], ids[row.Name] = true, row.ID
	}
	return nil
}

func toServices(rows []service) []models.Service {
	out := make([]models.Service, len(rows))
	for n, r := range rows {
		out[n] = models.Service{ID: r.ID, Name: r.Name, CreatedAt: r.CreatedAt}
	}
	return out
}

func toRegions(rows []service) []models.Region {
	out := make([]models.Region, len(rows))
	for n, r := range rows {
		out[n] = models.Region{ID: r.ID, Name: r.Name, CreatedAt: r.CreatedAt}
	}
	return out
}

// toModel checks an exported incident with the rules the forms use and turns it into the rows
// to restore. Impact windows are checked like any input, except that one ending before it
// starts is let through: a backup restores what the database held.
func toModel(in incident, ids refs) (*models.Incident, models.FieldErrors) {
	var errs models.FieldErrors
	if in.ID <= 0 {
		errs.Add("id", "Every incident needs a positive id.")
	}
	errs = append(errs, models.ValidateIncident(models.IncidentInput{
		Title: in.Title, Summary: in.Summary, Severity: in.Severity, Status: in.Status,
		DetectionMethod: in.DetectionMethod, CustomerImpact: in.CustomerImpact, RootCause: in.RootCause,
		Trigger: in.Trigger, Detection: in.Detection, Response: in.Response, Lessons: in.Lessons,
		TimeZone: in.TimeZone, PostmortemState: in.PostmortemState, Services: in.Services, Regions: in.Regions,
		Factors: in.Factors, Template: in.Template, Sections: sectionInputs(in.Sections),
	})...)
	inc := &models.Incident{
		ID: in.ID, Title: in.Title, Summary: in.Summary, Severity: in.Severity, Status: in.Status,
		DetectionMethod: in.DetectionMethod, CustomerImpact: in.CustomerImpact, RootCause: in.RootCause,
		Trigger: in.Trigger, Detection: in.Detection, Response: in.Response, Lessons: in.Lessons,
		TimeZone: in.TimeZone, TriggeredAt: in.TriggeredAt, StartedAt: in.StartedAt, DetectedAt: in.DetectedAt,
		AcknowledgedAt: in.AcknowledgedAt, MitigatedAt: in.MitigatedAt, ResolvedAt: in.ResolvedAt,
		PostmortemState: in.PostmortemState, PublishedAt: in.PublishedAt, Public: in.Public,
		Source: in.Source, ExternalID: in.ExternalID, Version: in.Version,
		CreatedAt: in.CreatedAt, UpdatedAt: in.UpdatedAt,
		NearMiss: in.NearMiss, TemplateSlug: in.Template, Sections: in.Sections,
	}
	if in.DeletedAt != nil {
		inc.DeletedAt.Time, inc.DeletedAt.Valid = *in.DeletedAt, true
	}
	if in.Version < 1 {
		errs.Add("version", "Must be at least 1.")
	}
	lookup := func(field string, ids map[string]int64, names []string) []models.Service {
		out := make([]models.Service, 0, len(names))
		for _, name := range names {
			id, ok := ids[name]
			if !ok {
				errs.Add(field, fmt.Sprintf("%q is not in the document's list.", name))
				continue
			}
			out = append(out, models.Service{ID: id, Name: name})
		}
		return out
	}
	inc.Services = lookup("services", ids.services, in.Services)
	for _, r := range lookup("regions", ids.regions, in.Regions) {
		inc.Regions = append(inc.Regions, models.Region{ID: r.ID, Name: r.Name})
	}
	factorsOf := func(field string, slugs []string) []models.Factor {
		var out []models.Factor
		for _, f := range lookup(field, ids.factors, slugs) {
			out = append(out, models.Factor{ID: f.ID, Slug: f.Name})
		}
		return out
	}
	inc.Factors = factorsOf("factors", in.Factors)
	for n, l := range in.Links {
		prefix := fmt.Sprintf("links[%d].", n)
		errs = append(errs, models.Validate(models.LinkInput{Kind: l.Kind, IncidentID: l.ToID}).Prefixed(prefix)...)
		if l.ID <= 0 {
			errs.Add(prefix+"id", "Every record needs a positive id.")
		}
	}
	for n, ev := range in.Timeline {
		prefix := fmt.Sprintf("timeline[%d].", n)
		errs = append(errs, models.Validate(models.EventInput{At: ev.At, Kind: ev.Kind, Status: ev.Status, Body: ev.Body, Public: ev.Public}).Prefixed(prefix)...)
		if ev.ID <= 0 {
			errs.Add(prefix+"id", "Every record needs a positive id.")
		}
		inc.Timeline = append(inc.Timeline, models.TimelineEvent{ID: ev.ID, At: ev.At, Kind: ev.Kind, Status: ev.Status, Body: ev.Body, Public: ev.Public, CreatedAt: ev.CreatedAt, UpdatedAt: ev.UpdatedAt})
	}
	for n, w := range in.ImpactWindows {
		prefix := fmt.Sprintf("impact_windows[%d].", n)
		errs = append(errs, models.Validate(models.WindowInput{StartedAt: w.StartedAt, EndedAt: w.EndedAt, Level: w.Level, Note: w.Note, Services: w.Services}).Prefixed(prefix)...)
		if w.ID <= 0 {
			errs.Add(prefix+"id", "Every record needs a positive id.")
		}
		row := models.ImpactWindow{ID: w.ID, StartedAt: w.StartedAt, EndedAt: w.EndedAt, Level: w.Level, Note: w.Note, CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt}
		row.Services = lookup(prefix+"services", ids.services, w.Services)
		inc.ImpactWindows = append(inc.ImpactWindows, row)
	}
	for n, f := range in.FollowUps {
		prefix := fmt.Sprintf("follow_ups[%d].", n)
		row := models.FollowUp{
			ID: f.ID, Title: f.Title, Description: f.Description, Kind: f.Kind, Priority: f.Priority,
			Owner: f.Owner, Status: f.Status, DoneAt: f.DoneAt, TrackerURL: f.TrackerURL,
			Verification: f.Verification, Version: f.Version, CreatedAt: f.CreatedAt, UpdatedAt: f.UpdatedAt,
			Factors: factorsOf(prefix+"factors", f.Factors),
		}
		if f.DueOn != "" {
			due, err := time.Parse(time.DateOnly, f.DueOn)
			if err != nil {
				errs.Add(prefix+"due_on", "Not a date like 2026-04-30.")
			} else {
				row.DueOn = &due
			}
		}
		errs = append(errs, models.Validate(models.FollowUpInput{
			Title: f.Title, Description: f.Description, Kind: f.Kind, Priority: f.Priority, Owner: f.Owner,
			DueOn: row.DueOn, Status: f.Status, TrackerURL: f.TrackerURL, Verification: f.Verification, Factors: f.Factors,
		}).Prefixed(prefix)...)
		if f.ID <= 0 {
			errs.Add(prefix+"id", "Every record needs a positive id.")
		}
		inc.FollowUps = append(inc.FollowUps, row)
	}
	numbers := map[int]bool{}
	for n, v := range in.PostmortemVersions {
		prefix := fmt.Sprintf("postmortem_versions[%d].", n)
		if v.ID <= 0 {
			errs.Add(prefix+"id", "Every record needs a positive id.")
		}
		if v.Version < 1 {
			errs.Add(prefix+"version", "Must be at least 1.")
		} else if numbers[v.Version] {
			errs.Add(prefix+"version", fmt.Sprintf("Version %d appears twice.", v.Version))
		}
		numbers[v.Version] = true
		if v.PublishedAt.IsZero() {
			errs.Add(prefix+"published_at", "Every version needs the time it was published.")
		}
		if _, err := (&models.PostmortemVersion{Body: v.Body}).Public(); err != nil {
			errs.Add(prefix+"body", "Not a public postmortem in JSON.")
		}
	}
	return inc, errs
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("expected %q, found %v", string(want), tok)
	}
	return nil
}
