package models

import (
	"context"
	"fmt"
	"slices"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"hindsight/models/language"
)

// languageRuleOff is one wording-check rule a user switched off.
type languageRuleOff struct {
	UserID int64  `gorm:"primaryKey"`
	Rule   string `gorm:"primaryKey"`
}

func (languageRuleOff) TableName() string { return "language_rules_off" }

// LanguageRulesOff returns the wording-check rules the user switched off, as the set
// language.Check takes. Ids of rules that no longer exist are left out.
func (s *Store) LanguageRulesOff(ctx context.Context, userID int64) (map[string]bool, error) {
	var rows []languageRuleOff
	if err := s.read.WithContext(ctx).Where("user_id = ?", userID).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("read language rules: %w", err)
	}
	off := map[string]bool{}
	for _, r := range rows {
		if language.Known(r.Rule) {
			off[r.Rule] = true
		}
	}
	return off, nil
}

// SetLanguageRulesOff replaces the set of rules the user switched off. An unknown rule id is a
// field error on "rules".
func (s *Store) SetLanguageRulesOff(ctx context.Context, userID int64, rules []string) error {
	for _, r := range rules {
		if !language.Known(r) {
			return FieldErrors{{Field: "rules", Message: fmt.Sprintf("There is no rule %q.", r)}}
		}
	}
	slices.Sort(rules)
	rules = slices.Compact(rules)
	err := s.write.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Where("user_id = ?", userID).Delete(&languageRuleOff{}).Error; err != nil {
			return err
		}
		for _, r := range rules {
			if err := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&languageRuleOff{UserID: userID, Rule: r}).Error; err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("save language rules: %w", err)
	}
	return nil
}
