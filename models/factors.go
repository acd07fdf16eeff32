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
	db := s.write.WithContext(ctx)
	var err error
	if id == 0 {
		err = db.Create(&f).Error
	} else {
		res := db.Model(&Factor{}).Where("id = ?", id).Updates(map[string]any{"slug": f.Slug, "name": f.Name, "description": f.Description, "updated_at": time.Now().UTC()})
		err = res.Error
		if err == nil && res.RowsAffected == 0 {
			return nil, fmt.Errorf("factor %d: %w", id, ErrNotFound)
		}
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
	clean := uniqueNames(slugs)
	if len(clean) == 0 {
		return nil, nil
	}
	var found []Factor
	if err := tx.Where("slug IN ?", clean).Find(&found).Error; err != nil {
		return nil, fmt.Errorf("find factors: %w", err)
	}
	ids := make([]int64, 0, len(found))
	known := map[string]bool{}
	for _, f := range found {
		ids = append(ids, f.ID)
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
	return ids, nil
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
