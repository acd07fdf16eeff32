package models

// PublishesPostmortem tells whether a write moves a postmortem to published: the state it had
// (empty for a new incident) was not published and the input's is. Every path that does so,
// the postmortem page, the incident form and the API, must pass the same publish check first.
func PublishesPostmortem(stored string, in IncidentInput) bool {
	return stored != PostmortemPublished && in.PostmortemState == PostmortemPublished
}

// IncidentAsWritten is the incident as a write would leave it: stored (nil for a new incident)
// with the input's fields and the nested lists the write replaces, for the publish check to
// look at before anything is saved. Services, regions and factors are the input's.
func IncidentAsWritten(stored *Incident, in IncidentInput, children Children) *Incident {
	next := &Incident{}
	if stored != nil {
		copied := *stored
		next = &copied
	}
	applyIncidentInput(next, in)
	next.Services, next.Regions = nil, nil
	for _, name := range uniqueNames(in.Services) {
		next.Services = append(next.Services, Service{Name: name})
	}
	for _, name := range uniqueNames(in.Regions) {
		next.Regions = append(next.Regions, Region{Name: name})
	}
	if in.Sections != nil {
		next.Sections = nil
		for n, sec := range *in.Sections {
			next.Sections = append(next.Sections, IncidentSection{Position: n, Slug: sec.Slug, Heading: sec.Heading, Body: sec.Body, Public: sec.Public})
		}
	}
	if children.Timeline != nil {
		next.Timeline = nil
		for _, ev := range *children.Timeline {
			next.Timeline = append(next.Timeline, TimelineEvent{At: ev.At, Kind: ev.Kind, Status: ev.Status, Body: ev.Body, Public: ev.Public})
		}
	}
	if children.ImpactWindows != nil {
		next.ImpactWindows = nil
		for _, w := range *children.ImpactWindows {
			win := ImpactWindow{StartedAt: w.StartedAt, EndedAt: w.EndedAt, Level: w.Level, Note: w.Note}
			for _, name := range w.Services {
				win.Services = append(win.Services, Service{Name: name})
			}
			next.ImpactWindows = append(next.ImpactWindows, win)
		}
	}
	if children.FollowUps != nil {
		next.FollowUps = nil
		for _, f := range *children.FollowUps {
			next.FollowUps = append(next.FollowUps, FollowUp{Title: f.Title, Description: f.Description, Kind: f.Kind, Priority: f.Priority,
				Owner: f.Owner, DueOn: f.DueOn, Status: f.Status, Verification: f.Verification})
		}
	}
	return next
}
