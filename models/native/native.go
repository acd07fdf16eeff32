// Package native writes the whole database as one JSON document and reads it back into an empty
// database: a backup, and the way to move from SQLite to PostgreSQL. Every id, version and
// timestamp is kept, so an export of the restored database is byte for byte the export it came
// from. It holds the incidents with everything nested in them and their links, services,
// regions, the factor taxonomy, the templates, the published postmortem versions, the site
// settings and the history, and row for row the status page's records (components, maintenance,
// subscribers, the logo, the Statuspage details), the integrations and alert state, the
// milestones' sources and the webhook endpoints (models.NativeVerbatimTables). Accounts,
// sessions, API tokens and the outboxes stay out (models.NativeTableCoverage says why), since a
// file that travels should not carry password hashes: on the new database an admin sets up the
// accounts again.
package native

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"maps"
	"slices"
	"strings"
	"time"

	"hindsight/models"
	"hindsight/models/incidentdto"
)

// Format names the document; FormatVersion changes when a reader must change with it.
const (
	Format        = "hindsight"
	FormatVersion = 1
)

// Summary counts what an import wrote, or in a check would write.
type Summary struct {
	Services, Regions, Factors, Incidents, Events, Windows, FollowUps, Links, History int
	// Versions counts published postmortem versions, Settings the stored site settings, Rows
	// the rows of the tables carried row for row (models.NativeVerbatimTables).
	Versions, Settings, Rows int
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

// incident is the shared shape (incidentdto) with what only a backup carries: the stored list of
// day-only milestones as it is kept, the deletion, the links from this incident to others and
// its published postmortem versions, oldest first (absent when there are none, and in exports
// made before versions were exported).
type incident struct {
	incidentdto.Incident
	MilestoneDays      string        `json:"milestone_days,omitempty"`
	DeletedAt          *time.Time    `json:"deleted_at,omitempty"`
	Links              []link        `json:"links"`
	PostmortemVersions []publication `json:"postmortem_versions,omitempty"`
}

// The document's order of the keys; what is empty is left out, but for the keys a reader needs.
var (
	eventLayout    = incidentdto.NewLayout("id", "at", "kind", "status,omitempty", "body,omitempty", "public", "created_at", "updated_at")
	windowLayout   = incidentdto.NewLayout("id", "started_at", "ended_at,omitempty", "level", "note,omitempty", "services", "created_at", "updated_at")
	followUpLayout = incidentdto.NewLayout("id", "title", "description,omitempty", "kind", "priority", "owner,omitempty",
		"due_on,omitempty", "status", "done_at,omitempty", "tracker_url,omitempty", "verification,omitempty", "factors",
		"version", "created_at", "updated_at").Drop("incident_id")
	incidentLayout = incidentdto.NewLayout("id", "title", "summary,omitempty", "severity", "status", "detection_method,omitempty",
		"customer_impact,omitempty", "root_cause,omitempty", "trigger,omitempty", "detection,omitempty", "response,omitempty",
		"lessons,omitempty", "time_zone", "triggered_at,omitempty", "started_at,omitempty", "detected_at,omitempty",
		"acknowledged_at,omitempty", "mitigated_at,omitempty", "resolved_at,omitempty", "milestone_days,omitempty",
		"postmortem_state", "published_at,omitempty", "public", "source,omitempty", "external_id,omitempty", "version",
		"created_at", "updated_at", "deleted_at,omitempty", "services", "regions", "factors", "timeline", "impact_windows",
		"follow_ups", "links", "near_miss,omitempty", "template,omitempty", "sections,omitempty", "postmortem_versions,omitempty").
		Nest("timeline", eventLayout).Nest("impact_windows", windowLayout).Nest("follow_ups", followUpLayout)
)

// incidentFields are an incident's fields without its MarshalJSON.
type incidentFields incident

// MarshalJSON writes the incident in the document's order.
func (in incident) MarshalJSON() ([]byte, error) { return incidentLayout.Marshal(incidentFields(in)) }

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

// instant is how the document writes every instant: UTC with microseconds, the precision both
// databases keep, so a SQLite export restored into PostgreSQL exports the same bytes.
var instant = incidentdto.Microseconds

// Export writes every incident, deleted ones included, with its nested records, and every
// service and region, ordered by id. It reads the incidents a batch at a time.
func Export(ctx context.Context, store *models.Store, w io.Writer) error {
	out := bufio.NewWriter(w)
	fmt.Fprintf(out, "{\n  \"format\": %q,\n  \"format_version\": %d,\n", Format, FormatVersion)
	if err := writeLists(ctx, store, out); err != nil {
		return err
	}
	if err := writeIncidents(ctx, store, out); err != nil {
		return err
	}
	if err := writeHistory(ctx, store, out); err != nil {
		return err
	}
	if err := writeTables(ctx, store, out); err != nil {
		return err
	}
	out.WriteString("}\n")
	return out.Flush()
}

// writeLists writes what the incidents refer to and the site's own records: services, regions,
// factors, settings, templates and the severities' default templates.
func writeLists(ctx context.Context, store *models.Store, out *bufio.Writer) error {
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
	return writeList(out, "template_defaults", defaults, false)
}

// writeIncidents writes every incident, a batch at a time, with its links and published versions.
func writeIncidents(ctx context.Context, store *models.Store, out *bufio.Writer) error {
	out.WriteString("  \"incidents\": [")
	first := true
	err := store.EachIncident(ctx, 200, func(batch []models.Incident) error {
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
			// The layout's own value: encoding/json writes it without reading a MarshalJSON's bytes again.
			if err := writeElement(out, incidentLayout.Value(incidentFields(row))); err != nil {
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
	out.WriteString("],\n")
	return nil
}

// writeHistory writes every history entry, a batch at a time.
func writeHistory(ctx context.Context, store *models.Store, out *bufio.Writer) error {
	out.WriteString("  \"audit_entries\": [")
	first := true
	err := store.EachAuditEntry(ctx, 1000, func(batch []models.AuditEntry) error {
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
	out.WriteString("],\n")
	return nil
}

// writeTables writes the tables carried row for row, each a list of rows keyed by column, every
// table present even when empty.
func writeTables(ctx context.Context, store *models.Store, out *bufio.Writer) error {
	out.WriteString("  \"tables\": {")
	for n, table := range models.NativeVerbatimTables() {
		if n > 0 {
			out.WriteString(",")
		}
		fmt.Fprintf(out, "\n    %q: [", table)
		first := true
		err := store.EachTableRow(ctx, table, func(row map[string]any) error {
			if !first {
				out.WriteString(",")
			}
			first = false
			data, err := json.MarshalIndent(row, "      ", "  ")
			if err != nil {
				return err
			}
			out.WriteString("\n      ")
			_, err = out.Write(data)
			return err
		})
		if err != nil {
			return err
		}
		if !first {
			out.WriteString("\n    ")
		}
		out.WriteString("]")
	}
	out.WriteString("\n  }\n")
	return nil
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
	out := incident{Incident: incidentdto.FromModel(inc, instant), MilestoneDays: inc.MilestoneDays, Links: []link{}}
	if inc.DeletedAt.Valid {
		deleted := instant(inc.DeletedAt.Time)
		out.DeletedAt = &deleted
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
		case "tables":
			err = pub.decodeTables(dec)
		case "templates":
			err = decodeTemplates(dec, &restored)
		case "template_defaults":
			err = decodeTemplateDefaults(dec, &restored)
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
				// The versions, settings and tables are all read once the history is: they are
				// written after it, in the same transaction.
				snap.Rest = func() (models.SnapshotRest, error) {
					return models.SnapshotRest{Versions: pub.versions, Settings: pub.settings, Tables: pub.tables}, nil
				}
				counts, err := store.RestoreDatabase(ctx, snap)
				if err != nil {
					return summary, err
				}
				summary = Summary{
					Services: counts.Services, Regions: counts.Regions, Factors: counts.Factors, Incidents: counts.Incidents,
					Events: counts.Events, Windows: counts.Windows, FollowUps: counts.FollowUps, Links: counts.Links, History: counts.History,
				}
			}
			summary.Services, summary.Regions, summary.Factors, summary.Links = len(services), len(regions), len(factors), len(links)
			summary.Versions, summary.Settings, summary.Rows = len(pub.versions), len(pub.settings), pub.rows()
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
			if key == "tables" {
				if err := pub.decodeTables(dec); err != nil {
					fail(fmt.Errorf("tables: %w", err))
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
// versions, the site settings and the tables carried row for row.
type publishing struct {
	versions []models.PostmortemVersion
	settings []models.Setting
	keys     map[string]bool
	tables   []models.TableRows
}

// decodeTables reads the tables carried row for row: an object of table names, each a list of
// rows keyed by column. Which tables and columns the schema has is checked as they are written.
func (p *publishing) decodeTables(dec *json.Decoder) error {
	if p.tables != nil {
		return errors.New("the tables appear twice")
	}
	var tables map[string][]map[string]json.RawMessage
	if err := dec.Decode(&tables); err != nil {
		return err
	}
	p.tables = []models.TableRows{}
	for _, name := range slices.Sorted(maps.Keys(tables)) {
		if kind, _ := models.NativeTableCoverage(name); kind != "verbatim" {
			return fmt.Errorf("%s is not a table this Hindsight restores row for row", name)
		}
		p.tables = append(p.tables, models.TableRows{Table: name, Rows: tables[name]})
	}
	return nil
}

func (p *publishing) rows() int {
	n := 0
	for _, t := range p.tables {
		n += len(t.Rows)
	}
	return n
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
	// The stored list of day-only milestones is the document's own key; the rows carry it as is.
	check := in.Fields.Input()
	check.Sections = sectionInputs(in.Sections)
	errs = append(errs, models.ValidateIncident(check)...)
	inc := in.Model()
	inc.MilestoneDays = in.MilestoneDays
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
		errs = append(errs, models.Validate(ev.Input()).Prefixed(prefix)...)
		if ev.ID <= 0 {
			errs.Add(prefix+"id", "Every record needs a positive id.")
		}
	}
	for n, w := range in.ImpactWindows {
		prefix := fmt.Sprintf("impact_windows[%d].", n)
		errs = append(errs, models.Validate(w.Input()).Prefixed(prefix)...)
		if w.ID <= 0 {
			errs.Add(prefix+"id", "Every record needs a positive id.")
		}
		inc.ImpactWindows[n].Services = lookup(prefix+"services", ids.services, w.Services)
	}
	for n, f := range in.FollowUps {
		prefix := fmt.Sprintf("follow_ups[%d].", n)
		if _, ok := f.Due(); !ok {
			errs.Add(prefix+"due_on", "Not a date like 2026-04-30.")
		}
		errs = append(errs, models.Validate(f.Input()).Prefixed(prefix)...)
		if f.ID <= 0 {
			errs.Add(prefix+"id", "Every record needs a positive id.")
		}
		inc.FollowUps[n].Factors = factorsOf(prefix+"factors", f.Factors)
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
