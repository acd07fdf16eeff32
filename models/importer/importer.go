// Package importer runs an import of incident records, read from any format, into the store: it
// checks every record first, matches records to stored incidents by source and external id, and
// writes the whole run in one transaction or not at all.
package importer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"hindsight/models"
)

// Record is one incident read from a file, ready for Run.
type Record struct {
	// File is the file the record came from, as the user named it.
	File string
	// Index is the record's 1-based position in its file; 0 when the file holds one record.
	Index int
	// Input is the incident; Source and ExternalID must be set, a re-import finds it by them.
	Input models.IncidentInput
	// Children are the nested lists the format carries; a nil list is one it does not carry.
	Children models.Children
	// Skip, when not empty, says why the record is not to be imported (an informational post, say).
	Skip string
	// Maintenance, when set, is planned work rather than an incident: it is kept as a
	// maintenance record (models.Maintenance), and Input and Children are not imported.
	// MaintenanceReason says how the reader told.
	Maintenance       *models.MaintenanceImport
	MaintenanceReason string
	// Errors are the problems found while reading the record, named by the format's own fields.
	Errors models.FieldErrors
	// Warnings are things worth knowing that do not stop the import. Each is worded without
	// naming the record, so a summary can count the records that share it.
	Warnings []string
	// FieldNames maps a domain field (title) to the format's name for it (name), so validation
	// errors point at what the user sees in the file.
	FieldNames map[string]string
}

// Name says which record this is: the file, the position and the external id.
func (r Record) Name() string {
	var parts []string
	if r.File != "" {
		parts = append(parts, r.File)
	}
	switch {
	case r.Index > 0 && r.Input.ExternalID != "":
		parts = append(parts, fmt.Sprintf("record %d (id %s)", r.Index, r.Input.ExternalID))
	case r.Index > 0:
		parts = append(parts, fmt.Sprintf("record %d", r.Index))
	case r.Input.ExternalID != "" && !strings.Contains(r.File, r.Input.ExternalID):
		parts = append(parts, "id "+r.Input.ExternalID)
	}
	if len(parts) == 0 {
		return "record"
	}
	return strings.Join(parts, ", ")
}

// Options change how Run behaves.
type Options struct {
	// DryRun works out and reports what would change, and writes nothing.
	DryRun bool
	// SkipInvalid imports the valid records when some are invalid, instead of writing nothing.
	SkipInvalid bool
}

// Action is what an import did, or in a dry run would do, with one record.
type Action string

// The actions, as the summary names them.
const (
	Create    Action = "create"
	Update    Action = "update"
	Unchanged Action = "unchanged"
	Skip      Action = "skip"
	// Maintain is a record kept as planned maintenance, created or replaced.
	Maintain Action = "maintenance"
	Invalid  Action = "invalid"
)

// Result is the outcome for one record.
type Result struct {
	Record     string // Record.Name()
	Source     string
	ExternalID string
	Action     Action
	// IncidentID is the stored incident, once known; 0 for a record not written.
	IncidentID int64
	// Reason says why a record was skipped.
	Reason string
	// Changes names the fields an update changes.
	Changes  []string
	Errors   models.FieldErrors
	Warnings []string
}

// Summary is the outcome of a run.
type Summary struct {
	DryRun                                    bool
	Created, Updated, Unchanged, Skipped, Bad int
	Maintenances                              int // records kept as planned maintenance
	Results                                   []Result
}

// Invalid lists the results of the invalid records.
func (s Summary) Invalid() []Result {
	var out []Result
	for _, r := range s.Results {
		if r.Action == Invalid {
			out = append(out, r)
		}
	}
	return out
}

// InvalidError is returned when some records are invalid and Options.SkipInvalid is off; nothing
// was written.
type InvalidError struct {
	Problems []Result
}

func (e *InvalidError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d invalid record(s), nothing was written (use --skip-invalid to import the others):", len(e.Problems))
	for n, p := range e.Problems {
		if n == 20 {
			fmt.Fprintf(&b, "\n  … and %d more", len(e.Problems)-n)
			break
		}
		for _, fe := range p.Errors {
			fmt.Fprintf(&b, "\n  %s: %s: %s", p.Record, fe.Field, fe.Message)
		}
	}
	return b.String()
}

// Run imports the records. Every record is checked before anything is written. A record whose
// source and external id match a stored incident updates it; one that matches a deleted incident
// is skipped, since what someone deleted on purpose stays deleted. With invalid records Run writes
// nothing and returns an *InvalidError, unless opts.SkipInvalid is set.
//
// An update keeps what Hindsight knows and the format does not say: a field the record leaves
// empty keeps its stored value, a nested list the record does not carry is left alone, and the
// timeline keeps its own entries that are not status updates (alerts, actions, internal notes),
// so a re-import never wipes out a postmortem written on an imported incident. The incident's
// time zone and public flag are taken from the record only when it is created. An update that
// would change nothing is reported as unchanged and not written.
func Run(ctx context.Context, store *models.Store, records []Record, opts Options) (Summary, error) {
	summary := Summary{DryRun: opts.DryRun, Results: make([]Result, len(records))}
	seen := map[[2]string]int{}
	var problems []Result
	for n, rec := range records {
		res := &summary.Results[n]
		*res = Result{Record: rec.Name(), Source: rec.Input.Source, ExternalID: rec.Input.ExternalID, Warnings: rec.Warnings}
		if rec.Skip != "" {
			res.Action, res.Reason = Skip, rec.Skip
			continue
		}
		if rec.Maintenance != nil {
			res.Action, res.Reason = Maintain, rec.MaintenanceReason
			res.Errors = Check(rec)
			key := [2]string{"maintenance:" + rec.Maintenance.Source, rec.Maintenance.ExternalID}
			if first, dup := seen[key]; dup && rec.Maintenance.ExternalID != "" {
				res.Errors.Add("id", fmt.Sprintf("The id %s appears twice; first at %s.", rec.Maintenance.ExternalID, summary.Results[first].Record))
			} else {
				seen[key] = n
			}
			if len(res.Errors) > 0 {
				res.Action = Invalid
				problems = append(problems, *res)
			}
			continue
		}
		res.Errors = Check(rec)
		key := [2]string{rec.Input.Source, rec.Input.ExternalID}
		if first, dup := seen[key]; dup && rec.Input.ExternalID != "" {
			res.Errors.Add("id", fmt.Sprintf("The id %s appears twice; first at %s.", rec.Input.ExternalID, summary.Results[first].Record))
		} else {
			seen[key] = n
		}
		if len(res.Errors) > 0 {
			res.Action = Invalid
			problems = append(problems, *res)
		}
	}
	if len(problems) > 0 && !opts.SkipInvalid {
		summary.count()
		return summary, &InvalidError{Problems: problems}
	}

	existing, err := loadExisting(ctx, store, records, summary.Results)
	if err != nil {
		return summary, err
	}
	var items []models.ImportItem
	var itemResult []int
	var maintenances []models.MaintenanceImport
	for n, rec := range records {
		res := &summary.Results[n]
		if res.Action == Maintain {
			maintenances = append(maintenances, *rec.Maintenance)
		}
		if res.Action != "" {
			continue
		}
		rec.Input.Origin = models.MilestoneOrigin{Kind: models.SourceImported, Detail: importedFrom(rec)}
		old := existing[[2]string{rec.Input.Source, rec.Input.ExternalID}]
		switch {
		case old == nil:
			res.Action = Create
			items = append(items, models.ImportItem{Input: rec.Input, Children: rec.Children})
			itemResult = append(itemResult, n)
		case old.DeletedAt.Valid:
			res.Action, res.IncidentID = Skip, old.ID
			res.Reason = "deleted in Hindsight; a re-import does not bring it back"
		default:
			res.IncidentID = old.ID
			in, children, changes := Merge(old, rec)
			in.Origin = rec.Input.Origin
			if len(changes) == 0 {
				res.Action = Unchanged
				continue
			}
			res.Action, res.Changes = Update, changes
			items = append(items, models.ImportItem{ID: old.ID, Version: old.Version, Input: in, Children: children})
			itemResult = append(itemResult, n)
		}
	}
	summary.count()
	if opts.DryRun || (len(items) == 0 && len(maintenances) == 0) {
		return summary, nil
	}
	ids, err := store.ImportIncidents(ctx, items, maintenances...)
	if err != nil {
		// Nothing was written: report the run as it would have been, and the reason it was not.
		return summary, err
	}
	for k, n := range itemResult {
		summary.Results[n].IncidentID = ids[k]
	}
	return summary, nil
}

func (s *Summary) count() {
	s.Created, s.Updated, s.Unchanged, s.Skipped, s.Bad, s.Maintenances = 0, 0, 0, 0, 0, 0
	for _, r := range s.Results {
		switch r.Action {
		case Create:
			s.Created++
		case Update:
			s.Updated++
		case Unchanged:
			s.Unchanged++
		case Skip:
			s.Skipped++
		case Invalid:
			s.Bad++
		case Maintain:
			s.Maintenances++
		}
	}
}

// loadExisting finds the stored incidents the records match, a query batch per source.
func loadExisting(ctx context.Context, store *models.Store, records []Record, results []Result) (map[[2]string]*models.Incident, error) {
	bySource := map[string][]string{}
	for n, rec := range records {
		if results[n].Action == "" {
			bySource[rec.Input.Source] = append(bySource[rec.Input.Source], rec.Input.ExternalID)
		}
	}
	out := map[[2]string]*models.Incident{}
	for source, ids := range bySource {
		found, err := store.IncidentsBySource(ctx, source, ids)
		if err != nil {
			return nil, err
		}
		for id, inc := range found {
			out[[2]string{source, id}] = inc
		}
	}
	return out, nil
}

// Check validates a record as the forms and the API would, and adds the problems the reader
// found. Field names are the format's where the record maps them.
func Check(rec Record) models.FieldErrors {
	errs := append(models.FieldErrors(nil), rec.Errors...)
	if rec.Maintenance != nil {
		return append(errs, models.CheckMaintenanceImport(*rec.Maintenance)...)
	}
	if rec.Input.Source == "" {
		errs.Add("source", "The record has no source.")
	}
	if rec.Input.ExternalID == "" {
		errs.Add("id", "The record has no id, so a re-import could not find it.")
	}
	for _, fe := range models.Validate(rec.Input) {
		if name, ok := rec.FieldNames[fe.Field]; ok {
			fe.Field = name
		}
		errs = append(errs, fe)
	}
	if rec.Children.Timeline != nil {
		for i, ev := range *rec.Children.Timeline {
			errs = append(errs, models.Validate(ev).Prefixed(fmt.Sprintf("timeline[%d].", i))...)
		}
	}
	if rec.Children.ImpactWindows != nil {
		for i, w := range *rec.Children.ImpactWindows {
			errs = append(errs, models.ValidateWindow(w).Prefixed(fmt.Sprintf("impact_windows[%d].", i))...)
		}
	}
	if rec.Children.FollowUps != nil {
		for i, f := range *rec.Children.FollowUps {
			errs = append(errs, models.Validate(f).Prefixed(fmt.Sprintf("follow_ups[%d].", i))...)
		}
	}
	return errs
}

// IsInvalid tells whether err is Run's report of invalid records.
func IsInvalid(err error) bool {
	var invalid *InvalidError
	return errors.As(err, &invalid)
}

// instant normalises a time the way the store keeps it: UTC, whole seconds.
func instant(t time.Time) time.Time { return t.UTC().Truncate(time.Second) }

// importedFrom names where a record's milestones came from: its file, and the format.
func importedFrom(rec Record) string {
	switch {
	case rec.File != "" && rec.Input.Source != "":
		return rec.File + " (" + rec.Input.Source + ")"
	case rec.File != "":
		return rec.File
	}
	return rec.Input.Source
}
