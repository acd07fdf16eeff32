package models_test

import (
	"context"
	"errors"
	"testing"

	"hindsight/models"
	"hindsight/models/storetest"
)

// TestBaseURLSetting: the base URL is saved trimmed of its trailing slash, with the status page
// settings and in their history, and one that links cannot be built on is refused.
func TestBaseURLSetting(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		for _, bad := range []string{"javascript:alert(1)", "ftp://x.example", "https://x.example/?q=1", "https://x.example/#top", "https://user:pw@x.example", "/relative", "https://"} {
			var fe models.FieldErrors
			err := s.SaveStatusSettings(ctx, models.StatusSettings{Name: "Acme", TimeZone: "UTC", BaseURL: bad})
			if !errors.As(err, &fe) || fe.For("base_url") == "" {
				t.Errorf("base URL %q: %v, want refused", bad, err)
			}
		}
		before, _ := s.ChangeMark(ctx)
		if err := s.SaveStatusSettings(ctx, models.StatusSettings{Name: "Acme", TimeZone: "UTC", BaseURL: " https://hindsight.example.com/ops/ "}); err != nil {
			t.Fatal(err)
		}
		got, err := s.StatusSettings(ctx)
		if err != nil || got.BaseURL != "https://hindsight.example.com/ops" {
			t.Errorf("saved base URL %q, %v", got.BaseURL, err)
		}
		if after, _ := s.ChangeMark(ctx); after <= before {
			t.Error("saving the base URL left the change mark, which the status page caches follow, where it was")
		}
		if err := s.SaveStatusSettings(ctx, models.StatusSettings{Name: "Acme", TimeZone: "UTC"}); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.StatusSettings(ctx); got.BaseURL != "" {
			t.Errorf("the base URL was not cleared: %q", got.BaseURL)
		}
	})
}
