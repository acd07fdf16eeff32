package models

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"gorm.io/gorm"
)

// Factor is one entry of the shared taxonomy of contributing factors.
type Factor struct {
	ID          int64
	Slug        string
	Name        string
	Description string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// FactorInput is a new or changed factor.
type FactorInput struct {
	Slug        string `json:"slug" validate:"required,max=60,slug"`
	Name        string `json:"name" validate:"required,max=120"`
	Description string `json:"description" validate:"max=2000"`
}

var slugPattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// ListFactors returns the taxonomy by name.
func (s *Store) ListFactors(ctx context.Context) ([]Factor, error) {
	var factors []Factor
	if err := s.read.WithContext(ctx).Order("name").Find(&factors).Error; err != nil {
		return nil, fmt.Errorf("list factors: %w", err)
	}
	return factors, nil
}

// SaveFactor creates a factor, or changes the one with id when id is not zero.
func (s *Store) SaveFactor(ctx context.Context, id int64, in FactorInput) (*Factor, error) {
	f := Factor{ID: id, Slug: strings.TrimSpace(in.Slug), Name: strings.TrimSpace(in.Name), Description: strings.TrimSpace(in.Description)}
	err := s.inWrite(ctx, func(db *gorm.DB, c *changes) error {
		// Pages offer the taxonomy and show factors' names: a new or renamed factor changes them all.
		c.shared()
		if id == 0 {
			return db.Create(&f).Error
		}
		res := db.Model(&Factor{}).Where("id = ?", id).Updates(map[string]any{"slug": f.Slug, "name": f.Name, "description": f.Description, "updated_at": time.Now().UTC()})
		if res.Error == nil && res.RowsAffected == 0 {
			return fmt.Errorf("factor %d: %w", id, ErrNotFound)
		}
		return res.Error
	})
	if errors.Is(err, ErrNotFound) {
		return nil, err
	}
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return nil, FieldErrors{{Field: "slug", Message: "Another factor has this slug."}}
	}
	if err != nil {
		return nil, fmt.Errorf("save factor: %w", err)
	}
	return &f, nil
}

// factorIDs resolves slugs to ids; unknown slugs are a field error on field.
func factorIDs(tx *gorm.DB, slugs []string, field string) ([]int64, error) {
	found, err := factorRows(tx, slugs, field)
	ids := make([]int64, len(found))
	for n, f := range found {
		ids[n] = f.ID
	}
	return ids, err
}

// factorRows finds the factors of the taxonomy named by their slugs, in name order; a slug not
// in the taxonomy is a field error on field.
func factorRows(tx *gorm.DB, slugs []string, field string) ([]Factor, error) {
	clean := uniqueNames(slugs)
	if len(clean) == 0 {
		return nil, nil
	}
	var found []Factor
	if err := tx.Where("slug IN ?", clean).Order("name, id").Find(&found).Error; err != nil {
		return nil, fmt.Errorf("find factors: %w", err)
	}
	known := map[string]bool{}
	for _, f := range found {
		known[f.Slug] = true
	}
	var unknown []string
	for _, slug := range clean {
		if !known[slug] {
			unknown = append(unknown, slug)
		}
	}
	if len(unknown) > 0 {
		return nil, FieldErrors{{Field: field, Message: "Unknown factor: " + strings.Join(unknown, ", ") + ". Use the slugs listed at /api/v1/factors."}}
	}
	return found, nil
}

func factorSlugs(factors []Factor) []string {
	slugs := make([]string, len(factors))
	for n, f := range factors {
		slugs[n] = f.Slug
	}
	return slugs
}

// FactorSlugs lists the incident's factors by slug.
func (i *Incident) FactorSlugs() []string { return factorSlugs(i.Factors) }

// FactorSlugs lists the factors a follow-up addresses by slug.
func (f *FollowUp) FactorSlugs() []string { return factorSlugs(f.Factors) }

// FactorUsage counts the incidents and follow-ups tagged with a factor, deleted incidents'
// included, so that removing it can say what it takes away.
func (s *Store) FactorUsage(ctx context.Context, id int64) (incidents, followUps int64, err error) {
	db := s.read.WithContext(ctx)
	if err := db.Table("incident_factors").Where("factor_id = ?", id).Count(&incidents).Error; err != nil {
		return 0, 0, fmt.Errorf("count incidents of factor %d: %w", id, err)
	}
	if err := db.Table("follow_up_factors").Where("factor_id = ?", id).Count(&followUps).Error; err != nil {
		return 0, 0, fmt.Errorf("count follow-ups of factor %d: %w", id, err)
	}
	return incidents, followUps, nil
}

// DeleteFactor removes a factor from the taxonomy and its tag from every incident and follow-up;
// the incidents and follow-ups themselves stay. The tags go first, row by row, so that whatever
// keeps counts and pages of the tags hears of each one, as when an incident is untagged.
func (s *Store) DeleteFactor(ctx context.Context, id int64) error {
	return s.inWrite(ctx, func(tx *gorm.DB, c *changes) error {
		c.shared()
		var tagged []int64
		err := tx.Raw(`SELECT incident_id FROM incident_factors WHERE factor_id = ?
			UNION SELECT f.incident_id FROM follow_up_factors t JOIN follow_ups f ON f.id = t.follow_up_id WHERE t.factor_id = ?`, id, id).
			Scan(&tagged).Error
		if err != nil {
			return fmt.Errorf("find what factor %d tags: %w", id, err)
		}
		c.insights(tagged...)
		if err := tx.Exec("DELETE FROM incident_factors WHERE factor_id = ?", id).Error; err != nil {
			return fmt.Errorf("untag incidents of factor %d: %w", id, err)
		}
		if err := tx.Exec("DELETE FROM follow_up_factors WHERE factor_id = ?", id).Error; err != nil {
			return fmt.Errorf("untag follow-ups of factor %d: %w", id, err)
		}
		res := tx.Delete(&Factor{}, id)
		if res.Error != nil {
			return fmt.Errorf("delete factor %d: %w", id, res.Error)
		}
		if res.RowsAffected == 0 {
			return fmt.Errorf("factor %d: %w", id, ErrNotFound)
		}
		return nil
	})
}
