package templates

import "hindsight/models"

// Notice is a message shown once on the incident page after a change: in the section it
// concerns ("" at the top), with an Undo button when the change can be taken back.
type Notice struct {
	Section   string // "timeline", "windows", "follow-ups", "links" or ""
	Message   string
	UndoToken string // empty: nothing to undo
}

// IncidentDeleteConsequence says what deleting an incident does, on its confirmation page and in
// its dialog.
var IncidentDeleteConsequence = "This moves it to the Trash with its timeline, impact windows and follow-ups, off every list and the status page. An admin can restore it from the Trash for " + Itoa(models.TrashDays) + " days."

// ChildDeleteConsequence says what deleting a record of an incident does.
func ChildDeleteConsequence(what string) string {
	if what == "link" {
		return "This removes the link from both incidents; link them again to bring it back."
	}
	return "This removes it from the incident, its figures and the status page. You can undo it right after."
}

// ConfirmView is the page that asks before a delete, for browsers without JavaScript: the
// question, what the record is, what deleting does, and a button that posts the delete.
type ConfirmView struct {
	Page
	Question    string
	Details     []string
	Consequence string
	Action      string // where the delete is posted
	Button      string
	Cancel      string // back to the record
}

// TrashView is the Trash: incidents deleted in the last TrashDays days.
type TrashView struct {
	Page
	Incidents []models.TrashedIncident
	Flash     string
}

// DeletedView is the page after an incident is deleted: where it went and until when it can
// come back.
type DeletedView struct {
	Page
	Incident models.TrashedIncident
}
