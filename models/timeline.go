package models

import "time"

// StatusBefore is the status a new status update at t most likely posts: the status of the
// latest status update at or before t (of two at the same instant, the one added last), or
// "investigating" when none is, since that is how every incident opens. With t nil, when the new
// entry's time is not known yet, it is the status of the latest status update of all: an
// entry added to the end of the timeline continues from there. The incident's own status is not
// used: it says where the incident ended, which is wrong for every back-filled update before.
// The timeline must be in the store's order (at, then id).
func (i *Incident) StatusBefore(t *time.Time) string {
	status := "investigating"
	for _, ev := range i.Timeline {
		if t != nil && ev.At.After(*t) {
			break
		}
		if ev.Kind == "status_update" && ev.Status != "" {
			status = ev.Status
		}
	}
	return status
}
