package models

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// The review of a postmortem (issue 18): reviews asked of accounts, threads of comments on its
// sections, and the reviewers' approvals, which publishing asks for. None of it is public.

// Errors of the review rules.
var (
	// ErrNotReviewer is returned when someone approves a postmortem nobody asked them to review.
	ErrNotReviewer = errors.New("not a requested reviewer")
)

// ReviewCommentMax is the longest comment accepted, in characters.
const ReviewCommentMax = 10000

// RuleNoApproval is the publish check's finding for a postmortem no reviewer approved.
const RuleNoApproval = "no_approval"

// ReviewRequest is a review asked of an account, approved or not.
type ReviewRequest struct {
	ID            int64
	IncidentID    int64
	ReviewerID    int64
	RequestedByID *int64
	RequestedAt   time.Time
	ApprovedAt    *time.Time
	Reviewer      User `gorm:"foreignKey:ReviewerID"`
}

// ReviewThread is a thread of comments on one section of a postmortem.
type ReviewThread struct {
	ID           int64
	IncidentID   int64
	Section      string
	AuthorID     *int64
	CreatedAt    time.Time
	ResolvedAt   *time.Time
	ResolvedByID *int64
	Author       *User           `gorm:"foreignKey:AuthorID"`
	Comments     []ReviewComment `gorm:"foreignKey:ThreadID"`
}

// ReviewComment is one comment of a thread; the first opens it.
type ReviewComment struct {
	ID         int64
	ThreadID   int64
	IncidentID int64
	AuthorID   *int64
	Body       string
	CreatedAt  time.Time
	Author     *User `gorm:"foreignKey:AuthorID"`
}

// Review is everything of an incident's review.
type Review struct {
	Requests []ReviewRequest
	Threads  []ReviewThread
}

// Approvals counts the reviewers who approve now.
func (r *Review) Approvals() int {
	n := 0
	for _, q := range r.Requests {
		if q.ApprovedAt != nil {
			n++
		}
	}
	return n
}

// RequestOf returns the review asked of an account, or nil.
func (r *Review) RequestOf(userID int64) *ReviewRequest {
	for n := range r.Requests {
		if r.Requests[n].ReviewerID == userID {
			return &r.Requests[n]
		}
	}
	return nil
}

// Open counts the threads not resolved.
func (r *Review) Open() int {
	n := 0
	for _, t := range r.Threads {
		if t.ResolvedAt == nil {
			n++
		}
	}
	return n
}

// ThreadsOn lists the threads on one section.
func (r *Review) ThreadsOn(section string) []ReviewThread {
	var out []ReviewThread
	for _, t := range r.Threads {
		if t.Section == section {
			out = append(out, t)
		}
	}
	return out
}

// ReviewOf reads an incident's review: its requests, reviewer first by name, and its threads,
// oldest first, each with its comments.
func (s *Store) ReviewOf(ctx context.Context, incidentID int64) (*Review, error) {
	db := s.read.WithContext(ctx)
	var r Review
	if err := db.Preload("Reviewer").Where("incident_id = ?", incidentID).Order("requested_at, id").Find(&r.Requests).Error; err != nil {
		return nil, fmt.Errorf("review requests of incident %d: %w", incidentID, err)
	}
	err := db.Preload("Author").Preload("Comments", func(db *gorm.DB) *gorm.DB { return db.Order("id") }).Preload("Comments.Author").
		Where("incident_id = ?", incidentID).Order("id").Find(&r.Threads).Error
	if err != nil {
		return nil, fmt.Errorf("review threads of incident %d: %w", incidentID, err)
	}
	return &r, nil
}

// Approvals counts an incident's approvals in one statement, for the publish check.
func (s *Store) Approvals(ctx context.Context, incidentID int64) (int, error) {
	var n int64
	if err := s.read.WithContext(ctx).Model(&ReviewRequest{}).Where("incident_id = ? AND approved_at IS NOT NULL", incidentID).Count(&n).Error; err != nil {
		return 0, fmt.Errorf("approvals of incident %d: %w", incidentID, err)
	}
	return int(n), nil
}

// ApprovalFinding is the publish check's finding when nobody approved the postmortem.
func ApprovalFinding(approvals int) []Finding {
	if approvals > 0 {
		return nil
	}
	return []Finding{{Rule: RuleNoApproval, Field: "review",
		Message: "No reviewer approved the postmortem: ask for a review, or say why it is published without one."}}
}

// RequestReview asks the accounts for a review of the incident's postmortem. Asking an account
// again changes nothing; a disabled or unknown account is a field error.
func (s *Store) RequestReview(ctx context.Context, incidentID int64, reviewerIDs []int64) error {
	if len(reviewerIDs) == 0 {
		return FieldErrors{{"reviewers", "Choose at least one account to review it."}}
	}
	actor := actorFrom(ctx)
	return s.inWrite(ctx, func(tx *gorm.DB, c *changes) error {
		if _, err := s.getIncident(tx, incidentID); err != nil {
			return err
		}
		var users []User
		if err := tx.Where("id IN ? AND disabled_at IS NULL", reviewerIDs).Find(&users).Error; err != nil {
			return fmt.Errorf("reviewers: %w", err)
		}
		if len(users) != len(uniqueIDs(reviewerIDs)) {
			return FieldErrors{{"reviewers", "Choose accounts from the list; disabled accounts cannot review."}}
		}
		now := time.Now().UTC()
		var names []string
		for _, u := range users {
			req := ReviewRequest{IncidentID: incidentID, ReviewerID: u.ID, RequestedAt: now}
			if actor.UserID != 0 {
				req.RequestedByID = &actor.UserID
			}
			res := tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "incident_id"}, {Name: "reviewer_id"}}, DoNothing: true}).
				Omit("Reviewer").Create(&req)
			if res.Error != nil {
				return fmt.Errorf("request a review of incident %d: %w", incidentID, res.Error)
			}
			if res.RowsAffected > 0 {
				names = append(names, u.Label())
			}
		}
		if len(names) == 0 {
			return nil
		}
		c.incident(incidentID)
		return audit(tx, ActionUpdate, EntityIncident, incidentID, incidentID, fields{"review_requested_of": nil}, fields{"review_requested_of": strings.Join(names, ", ")})
	})
}

// SetApproval records that the reviewer approves the postmortem, or withdraws an approval. Only a
// reviewer asked for a review may: anyone else gets ErrNotReviewer. The history keeps both.
func (s *Store) SetApproval(ctx context.Context, incidentID, reviewerID int64, approve bool) error {
	return s.inWrite(ctx, func(tx *gorm.DB, c *changes) error {
		var req ReviewRequest
		err := tx.Where("incident_id = ? AND reviewer_id = ?", incidentID, reviewerID).Take(&req).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return fmt.Errorf("user %d on incident %d: %w", reviewerID, incidentID, ErrNotReviewer)
		}
		if err != nil {
			return fmt.Errorf("review request: %w", err)
		}
		if (req.ApprovedAt != nil) == approve {
			return nil
		}
		var at any
		before, after := fields{"approved": "no"}, fields{"approved": "yes"}
		if approve {
			at = time.Now().UTC()
		} else {
			before, after = after, before
		}
		if err := tx.Model(&ReviewRequest{}).Where("id = ?", req.ID).Update("approved_at", at).Error; err != nil {
			return fmt.Errorf("set approval: %w", err)
		}
		c.incident(incidentID)
		return audit(tx, ActionUpdate, EntityIncident, incidentID, incidentID, before, after)
	})
}

// reviewSections are the sections a thread may be on: the incident's own and its template's.
func reviewSection(inc *Incident, section string) bool {
	if IsCoreSection(section) || section == "summary" || section == "timeline" || section == "follow_ups" {
		return true
	}
	return inc.Section(section) != nil
}

func commentProblem(body string) string {
	switch {
	case strings.TrimSpace(body) == "":
		return "Write the comment."
	case utf8.RuneCountInString(body) > ReviewCommentMax:
		return fmt.Sprintf("Keep a comment under %d characters.", ReviewCommentMax)
	}
	return ""
}

// StartThread opens a thread on a section of the postmortem with its first comment.
func (s *Store) StartThread(ctx context.Context, incidentID int64, section, body string) (*ReviewThread, error) {
	if p := commentProblem(body); p != "" {
		return nil, FieldErrors{{"body", p}}
	}
	actor := actorFrom(ctx)
	var thread ReviewThread
	err := s.inWrite(ctx, func(tx *gorm.DB, c *changes) error {
		inc, err := s.getIncident(tx, incidentID)
		if err != nil {
			return err
		}
		if err := tx.Where("incident_id = ?", incidentID).Order("position").Find(&inc.Sections).Error; err != nil {
			return fmt.Errorf("sections of incident %d: %w", incidentID, err)
		}
		if !reviewSection(inc, section) {
			return FieldErrors{{"section", "Choose a section of this postmortem."}}
		}
		now := time.Now().UTC()
		thread = ReviewThread{IncidentID: incidentID, Section: section, CreatedAt: now, AuthorID: optionalID(actor.UserID)}
		if err := tx.Omit(clause.Associations).Create(&thread).Error; err != nil {
			return fmt.Errorf("start a thread on incident %d: %w", incidentID, err)
		}
		comment := ReviewComment{ThreadID: thread.ID, IncidentID: incidentID, AuthorID: thread.AuthorID, Body: body, CreatedAt: now}
		if err := tx.Omit(clause.Associations).Create(&comment).Error; err != nil {
			return fmt.Errorf("comment on incident %d: %w", incidentID, err)
		}
		c.incident(incidentID)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &thread, nil
}

// Reply adds a comment to a thread of the incident.
func (s *Store) Reply(ctx context.Context, incidentID, threadID int64, body string) error {
	if p := commentProblem(body); p != "" {
		return FieldErrors{{"body", p}}
	}
	actor := actorFrom(ctx)
	return s.inWrite(ctx, func(tx *gorm.DB, c *changes) error {
		if err := threadOf(tx, incidentID, threadID); err != nil {
			return err
		}
		comment := ReviewComment{ThreadID: threadID, IncidentID: incidentID, AuthorID: optionalID(actor.UserID), Body: body, CreatedAt: time.Now().UTC()}
		if err := tx.Omit(clause.Associations).Create(&comment).Error; err != nil {
			return fmt.Errorf("reply on incident %d: %w", incidentID, err)
		}
		c.incident(incidentID)
		return nil
	})
}

// ResolveThread marks a thread resolved, or open again.
func (s *Store) ResolveThread(ctx context.Context, incidentID, threadID int64, resolved bool) error {
	actor := actorFrom(ctx)
	return s.inWrite(ctx, func(tx *gorm.DB, c *changes) error {
		if err := threadOf(tx, incidentID, threadID); err != nil {
			return err
		}
		updates := map[string]any{"resolved_at": nil, "resolved_by_id": nil}
		if resolved {
			updates["resolved_at"], updates["resolved_by_id"] = time.Now().UTC(), optionalID(actor.UserID)
		}
		if err := tx.Model(&ReviewThread{}).Where("id = ?", threadID).Updates(updates).Error; err != nil {
			return fmt.Errorf("resolve thread %d: %w", threadID, err)
		}
		c.incident(incidentID)
		return nil
	})
}

func threadOf(tx *gorm.DB, incidentID, threadID int64) error {
	var n int64
	if err := tx.Model(&ReviewThread{}).Where("id = ? AND incident_id = ?", threadID, incidentID).Count(&n).Error; err != nil {
		return fmt.Errorf("thread %d: %w", threadID, err)
	}
	if n == 0 {
		return fmt.Errorf("thread %d of incident %d: %w", threadID, incidentID, ErrNotFound)
	}
	return nil
}

func optionalID(id int64) *int64 {
	if id == 0 {
		return nil
	}
	return &id
}
