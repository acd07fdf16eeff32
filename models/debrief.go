package models

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"
)

// The debrief (issue 18): the meeting where the people named in the incident talk it through, as
// Etsy's Debriefing Facilitation Guide describes, and its notes. Internal, like the review.

// Debrief limits.
const (
	DebriefNotesMax    = 100000 // characters
	DebriefMinMinutes  = 15
	DebriefMaxMinutes  = 480
	DebriefDefaultMins = 60
)

// Debrief is an incident's debrief meeting.
type Debrief struct {
	IncidentID      int64 `gorm:"primaryKey;autoIncrement:false"`
	StartsAt        time.Time
	DurationMinutes int
	FacilitatorID   *int64
	NoteTakerID     *int64
	Notes           string
	UID             string `gorm:"column:uid"`
	Sequence        int
	CreatedAt       time.Time
	UpdatedAt       time.Time
	// Read with the debrief, not columns of it.
	Facilitator  *User  `gorm:"-"`
	NoteTaker    *User  `gorm:"-"`
	Participants []User `gorm:"-"`
}

// EndsAt is when the meeting ends.
func (d *Debrief) EndsAt() time.Time {
	return d.StartsAt.Add(time.Duration(d.DurationMinutes) * time.Minute)
}

// Attendees lists everyone invited, facilitator and note taker first, each once.
func (d *Debrief) Attendees() []User {
	var out []User
	seen := map[int64]bool{}
	for _, u := range append([]*User{d.Facilitator, d.NoteTaker}, ptrs(d.Participants)...) {
		if u != nil && !seen[u.ID] {
			seen[u.ID] = true
			out = append(out, *u)
		}
	}
	return out
}

func ptrs(users []User) []*User {
	out := make([]*User, len(users))
	for n := range users {
		out[n] = &users[n]
	}
	return out
}

// HasParticipant tells whether the account is among the participants.
func (d *Debrief) HasParticipant(id int64) bool {
	return slices.ContainsFunc(d.Participants, func(u User) bool { return u.ID == id })
}

type debriefParticipant struct {
	IncidentID int64 `gorm:"primaryKey;autoIncrement:false"`
	UserID     int64 `gorm:"primaryKey;autoIncrement:false"`
}

func (debriefParticipant) TableName() string { return "debrief_participants" }

// DebriefInput is a debrief as the schedule form gives it.
type DebriefInput struct {
	StartsAt        time.Time
	DurationMinutes int
	FacilitatorID   int64
	NoteTakerID     int64
	ParticipantIDs  []int64
}

// DebriefOf reads an incident's debrief with its people, or ErrNotFound when none is scheduled.
func (s *Store) DebriefOf(ctx context.Context, incidentID int64) (*Debrief, error) {
	db := s.read.WithContext(ctx)
	var d Debrief
	if err := db.Where("incident_id = ?", incidentID).Take(&d).Error; err != nil {
		return nil, notFound(err, fmt.Sprintf("debrief of incident %d", incidentID))
	}
	var ids []int64
	if err := db.Model(&debriefParticipant{}).Where("incident_id = ?", incidentID).Pluck("user_id", &ids).Error; err != nil {
		return nil, fmt.Errorf("debrief participants of incident %d: %w", incidentID, err)
	}
	for _, id := range []*int64{d.FacilitatorID, d.NoteTakerID} {
		if id != nil {
			ids = append(ids, *id)
		}
	}
	var users []User
	if len(ids) > 0 {
		if err := db.Where("id IN ?", ids).Order("name, email").Find(&users).Error; err != nil {
			return nil, fmt.Errorf("debrief people of incident %d: %w", incidentID, err)
		}
	}
	participants := map[int64]bool{}
	for _, id := range ids[:len(ids)-countSet(d.FacilitatorID, d.NoteTakerID)] {
		participants[id] = true
	}
	for n := range users {
		u := users[n]
		if d.FacilitatorID != nil && u.ID == *d.FacilitatorID {
			d.Facilitator = &u
		}
		if d.NoteTakerID != nil && u.ID == *d.NoteTakerID {
			d.NoteTaker = &u
		}
		if participants[u.ID] {
			d.Participants = append(d.Participants, u)
		}
	}
	return &d, nil
}

func countSet(ids ...*int64) int {
	n := 0
	for _, id := range ids {
		if id != nil {
			n++
		}
	}
	return n
}

// ScheduleDebrief schedules the incident's debrief, or moves the one scheduled (its invitation's
// sequence goes up, so calendars update the meeting they hold).
func (s *Store) ScheduleDebrief(ctx context.Context, incidentID int64, in DebriefInput) (*Debrief, error) {
	var errs FieldErrors
	if in.StartsAt.IsZero() {
		errs.Add("starts_at", "Give the meeting's date and time, like 2026-03-12 15:00.")
	}
	if in.DurationMinutes < DebriefMinMinutes || in.DurationMinutes > DebriefMaxMinutes {
		errs.Add("duration", fmt.Sprintf("Give a length between %d and %d minutes.", DebriefMinMinutes, DebriefMaxMinutes))
	}
	if in.FacilitatorID == 0 {
		errs.Add("facilitator", "Choose who facilitates: ideally someone who was not in the incident.")
	}
	people := slices.Clone(in.ParticipantIDs)
	for _, id := range []int64{in.FacilitatorID, in.NoteTakerID} {
		if id != 0 {
			people = append(people, id)
		}
	}
	people = uniqueIDs(people)
	if len(errs) > 0 {
		return nil, errs
	}
	err := s.inWrite(ctx, func(tx *gorm.DB, c *changes) error {
		if _, err := s.getIncident(tx, incidentID); err != nil {
			return err
		}
		var n int64
		if err := tx.Model(&User{}).Where("id IN ? AND disabled_at IS NULL", people).Count(&n).Error; err != nil {
			return fmt.Errorf("debrief people: %w", err)
		}
		if int(n) != len(people) {
			return FieldErrors{{"participants", "Choose people from the list of accounts; disabled accounts cannot attend."}}
		}
		var d Debrief
		err := tx.Where("incident_id = ?", incidentID).Take(&d).Error
		now := time.Now().UTC()
		switch {
		case errors.Is(err, gorm.ErrRecordNotFound):
			uid := make([]byte, 12)
			if _, err := rand.Read(uid); err != nil {
				return fmt.Errorf("debrief uid: %w", err)
			}
			d = Debrief{IncidentID: incidentID, UID: fmt.Sprintf("debrief-%d-%s@hindsight", incidentID, hex.EncodeToString(uid)), CreatedAt: now}
		case err != nil:
			return fmt.Errorf("debrief of incident %d: %w", incidentID, err)
		default:
			d.Sequence++
		}
		d.StartsAt, d.DurationMinutes, d.UpdatedAt = in.StartsAt.UTC(), in.DurationMinutes, now
		d.FacilitatorID, d.NoteTakerID = optionalID(in.FacilitatorID), optionalID(in.NoteTakerID)
		if err := tx.Save(&d).Error; err != nil {
			return fmt.Errorf("schedule the debrief of incident %d: %w", incidentID, err)
		}
		if err := tx.Where("incident_id = ?", incidentID).Delete(&debriefParticipant{}).Error; err != nil {
			return fmt.Errorf("debrief participants: %w", err)
		}
		for _, id := range uniqueIDs(in.ParticipantIDs) {
			if err := tx.Create(&debriefParticipant{IncidentID: incidentID, UserID: id}).Error; err != nil {
				return fmt.Errorf("debrief participant: %w", err)
			}
		}
		c.incident(incidentID)
		return audit(tx, ActionUpdate, EntityIncident, incidentID, incidentID, fields{"debrief_at": nil}, fields{"debrief_at": timeField(&d.StartsAt)})
	})
	if err != nil {
		return nil, err
	}
	return s.DebriefOf(ctx, incidentID)
}

// SaveDebriefNotes keeps the debrief's notes (Markdown).
func (s *Store) SaveDebriefNotes(ctx context.Context, incidentID int64, notes string) error {
	if utf8.RuneCountInString(notes) > DebriefNotesMax {
		return FieldErrors{{"notes", fmt.Sprintf("Keep the notes under %d characters.", DebriefNotesMax)}}
	}
	return s.inWrite(ctx, func(tx *gorm.DB, c *changes) error {
		res := tx.Model(&Debrief{}).Where("incident_id = ?", incidentID).Updates(map[string]any{"notes": notes, "updated_at": time.Now().UTC()})
		if res.Error != nil {
			return fmt.Errorf("debrief notes of incident %d: %w", incidentID, res.Error)
		}
		if res.RowsAffected == 0 {
			return fmt.Errorf("debrief of incident %d: %w", incidentID, ErrNotFound)
		}
		c.incident(incidentID)
		return nil
	})
}

// SuggestedParticipants are the accounts named in the incident, as the Etsy guide asks to invite
// everyone in the timeline: follow-up owners (by account, or by the name or email typed), and
// accounts whose name or email appears in a timeline entry.
func SuggestedParticipants(inc *Incident, users []User) []int64 {
	var out []int64
	add := func(id int64) {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	for _, u := range users {
		if u.DisabledAt != nil {
			continue
		}
		for _, f := range inc.FollowUps {
			owner := strings.TrimSpace(f.Owner)
			if (f.OwnerID != nil && *f.OwnerID == u.ID) || (owner != "" && (strings.EqualFold(owner, u.Name) || strings.EqualFold(owner, u.Email))) {
				add(u.ID)
			}
		}
		for _, ev := range inc.Timeline {
			if (u.Name != "" && containsWord(ev.Body, u.Name)) || containsWord(ev.Body, u.Email) {
				add(u.ID)
			}
		}
	}
	return out
}

// Invitation is a debrief invitation to one address, queued in the outbox.
type Invitation struct {
	ID            int64
	IncidentID    int64
	Address       string
	Subject       string
	Body          string
	Calendar      string
	Attempts      int
	NextAttemptAt time.Time
	ClaimedUntil  *time.Time
	SentAt        *time.Time
	FailedAt      *time.Time
	LastError     string
	CreatedAt     time.Time
}

func (Invitation) TableName() string { return "debrief_invitations" }

// QueueInvitations queues one invitation per message, in one transaction, and wakes the outbox
// worker once it commits.
func (s *Store) QueueInvitations(ctx context.Context, incidentID int64, invitations []Invitation) error {
	if len(invitations) == 0 {
		return nil
	}
	return s.inWrite(ctx, func(tx *gorm.DB, c *changes) error {
		now := time.Now().UTC()
		for n := range invitations {
			inv := invitations[n]
			inv.ID, inv.IncidentID, inv.NextAttemptAt, inv.CreatedAt = 0, incidentID, now, now
			if err := tx.Create(&inv).Error; err != nil {
				return fmt.Errorf("queue a debrief invitation: %w", err)
			}
		}
		c.incident(incidentID)
		s.wakeAfterCommit(tx)
		return nil
	})
}

// ClaimInvitations takes up to limit due invitations for lease, so that no other worker sends
// them meanwhile.
func (s *Store) ClaimInvitations(ctx context.Context, limit int, lease time.Duration) ([]Invitation, error) {
	now := time.Now().UTC()
	var due []Invitation
	// Read on the read pool: most rounds find nothing due, and need not take SQLite's one writer.
	err := s.read.WithContext(ctx).Where(dueAndFree, now, now).
		Order("next_attempt_at, id").Limit(limit).Find(&due).Error
	if err != nil {
		return nil, fmt.Errorf("due invitations: %w", err)
	}
	var out []Invitation
	for _, inv := range due {
		res := s.write.WithContext(ctx).Model(&Invitation{}).
			Where("id = ? AND sent_at IS NULL AND (claimed_until IS NULL OR claimed_until < ?)", inv.ID, now).
			Update("claimed_until", now.Add(lease))
		if res.Error != nil {
			return out, fmt.Errorf("claim invitation %d: %w", inv.ID, res.Error)
		}
		if res.RowsAffected == 1 {
			out = append(out, inv)
		}
	}
	return out, nil
}

// InvitationSent records an invitation as sent.
func (s *Store) InvitationSent(ctx context.Context, id int64) error {
	err := s.write.WithContext(ctx).Model(&Invitation{}).Where("id = ?", id).
		Updates(map[string]any{"sent_at": time.Now().UTC(), "claimed_until": nil, "last_error": ""}).Error
	if err != nil {
		return fmt.Errorf("invitation %d sent: %w", id, err)
	}
	return nil
}

// InvitationFailed records a failed attempt: retried at next, or given up when next is nil.
func (s *Store) InvitationFailed(ctx context.Context, id int64, attempts int, next *time.Time, reason string) error {
	updates := map[string]any{"attempts": attempts, "claimed_until": nil, "last_error": reason}
	if next == nil {
		updates["failed_at"] = time.Now().UTC()
	} else {
		updates["next_attempt_at"] = next.UTC()
	}
	if err := s.write.WithContext(ctx).Model(&Invitation{}).Where("id = ?", id).Updates(updates).Error; err != nil {
		return fmt.Errorf("invitation %d failed: %w", id, err)
	}
	return nil
}

// InvitationsOf lists an incident's invitations, newest first, for the debrief page.
func (s *Store) InvitationsOf(ctx context.Context, incidentID int64) ([]Invitation, error) {
	var out []Invitation
	if err := s.read.WithContext(ctx).Where("incident_id = ?", incidentID).Order("id DESC").Limit(100).Find(&out).Error; err != nil {
		return nil, fmt.Errorf("invitations of incident %d: %w", incidentID, err)
	}
	return out, nil
}

// MyReviewWork is what one person has to review or attend (the /reviews page).
type MyReviewWork struct {
	Requests []ReviewWorkItem // reviews asked of them and not approved
	Threads  []ReviewWorkItem // unresolved threads they started, or on postmortems they review
	Debriefs []ReviewWorkItem // upcoming debriefs they facilitate, take notes at or attend
}

// ReviewWorkItem is one line of MyReviewWork.
type ReviewWorkItem struct {
	IncidentID    int64
	IncidentTitle string
	At            time.Time // requested, thread opened, or the meeting's start
	Section       string    // threads
	ThreadID      int64     // threads
	Role          string    // debriefs: facilitator, note taker or participant
	Comments      int       // threads
}

// ReviewWorkOf reads MyReviewWork for an account, three statements.
func (s *Store) ReviewWorkOf(ctx context.Context, userID int64, now time.Time) (*MyReviewWork, error) {
	db := s.read.WithContext(ctx)
	var w MyReviewWork
	err := db.Raw(`SELECT r.incident_id, i.title AS incident_title, r.requested_at AS at
		FROM review_requests r JOIN incidents i ON i.id = r.incident_id AND i.deleted_at IS NULL
		WHERE r.reviewer_id = ? AND r.approved_at IS NULL ORDER BY r.requested_at, r.id`, userID).Scan(&w.Requests).Error
	if err != nil {
		return nil, fmt.Errorf("reviews asked of user %d: %w", userID, err)
	}
	err = db.Raw(`SELECT t.incident_id, i.title AS incident_title, t.created_at AS at, t.section, t.id AS thread_id,
			(SELECT COUNT(*) FROM review_comments c WHERE c.thread_id = t.id) AS comments
		FROM review_threads t JOIN incidents i ON i.id = t.incident_id AND i.deleted_at IS NULL
		WHERE t.resolved_at IS NULL AND (t.author_id = ?
			OR EXISTS (SELECT 1 FROM review_requests r WHERE r.incident_id = t.incident_id AND r.reviewer_id = ?))
		ORDER BY t.created_at, t.id`, userID, userID).Scan(&w.Threads).Error
	if err != nil {
		return nil, fmt.Errorf("threads of user %d: %w", userID, err)
	}
	err = db.Raw(`SELECT d.incident_id, i.title AS incident_title, d.starts_at AS at,
			CASE WHEN d.facilitator_id = ? THEN 'facilitator' WHEN d.note_taker_id = ? THEN 'note taker' ELSE 'participant' END AS role
		FROM debriefs d JOIN incidents i ON i.id = d.incident_id AND i.deleted_at IS NULL
		WHERE d.starts_at >= ? AND (d.facilitator_id = ? OR d.note_taker_id = ?
			OR EXISTS (SELECT 1 FROM debrief_participants p WHERE p.incident_id = d.incident_id AND p.user_id = ?))
		ORDER BY d.starts_at, d.incident_id`, userID, userID, now.UTC().Add(-3*time.Hour), userID, userID, userID).Scan(&w.Debriefs).Error
	if err != nil {
		return nil, fmt.Errorf("debriefs of user %d: %w", userID, err)
	}
	return &w, nil
}
