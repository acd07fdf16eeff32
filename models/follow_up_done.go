package models

import (
	"context"
	"fmt"
	"time"
)

// doneAtSlack is how far ahead of this server's clock an entered done date may be: a client's
// clock a little fast, or "now" typed to the minute, is not a date in the future.
const doneAtSlack = time.Minute

// CheckDoneAt applies the rules of an entered done date, which only a done follow-up keeps: it is
// not in the future and not before the incident started (started nil when unknown), since a fix
// is made after the incident it follows up. The message names the start in loc.
func CheckDoneAt(in FollowUpInput, started *time.Time, loc *time.Location, now time.Time) FieldErrors {
	var errs FieldErrors
	if in.Status != "done" || in.DoneAt == nil {
		return nil
	}
	switch {
	case in.DoneAt.After(now.Add(doneAtSlack)):
		errs.Add("done_at", "Cannot be in the future; enter when it was done, or leave it empty for now.")
	case started != nil && in.DoneAt.Before(*started):
		errs.Add("done_at", fmt.Sprintf("Cannot be before the incident started (%s): a fix comes after the incident it follows up.",
			started.In(loc).Format("2 Jan 2006 15:04 MST")))
	}
	return errs
}

// CheckFollowUpDone checks a done date people entered for a follow-up of this incident against
// the incident's start (CheckDoneAt), returning its FieldErrors, or ErrNotFound. The forms and
// the API ask it before saving; the store itself takes any done date, since imported history
// and an incident's start edited after its fix may disagree, and the recurrence report has a
// rule for that (a fix done before its own incident started does not make it come back).
func (s *Store) CheckFollowUpDone(ctx context.Context, incidentID int64, in FollowUpInput) error {
	if in.Status != "done" || in.DoneAt == nil {
		return nil
	}
	var inc Incident
	if err := s.read.WithContext(ctx).Select("id", "started_at", "time_zone").Where("id = ?", incidentID).Take(&inc).Error; err != nil {
		return notFound(err, fmt.Sprintf("incident %d", incidentID))
	}
	if errs := CheckDoneAt(in, inc.StartedAt, inc.Location(), time.Now()); len(errs) > 0 {
		return errs
	}
	return nil
}
