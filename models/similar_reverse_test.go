package models_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
)

// A newly filed incident that started before others it resembles shows among their suggestions
// once the keeper has ranked it, not when their rankings grow old an hour later; and the
// incident's own ranking is there too. The keeper writes a batch of rankings in one transaction.
func TestAFiledIncidentJoinsTheSuggestionsOfLaterOnes(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		keeper := models.NewSimilarKeeper(s, slog.New(slog.NewTextHandler(io.Discard, nil)))
		in := func(title string) models.IncidentInput {
			return models.IncidentInput{Title: title, Summary: "Authorization requests were retried until the hosts fell over.",
				Services: []string{"Authorization"}, Factors: []string{"retry-amplification"}}
		}
		later := createOnDay(t, s, 10, in("Authorization retries overwhelmed hosts again"))
		unrelated := createOnDay(t, s, 11, models.IncidentInput{Title: "Billing page slow", Services: []string{"Billing"}})
		for _, inc := range []*models.Incident{later, unrelated} {
			if got, err := keeper.For(ctx, inc); err != nil || len(got) != 0 {
				t.Fatalf("before anything earlier was filed: %v, %v", got, err)
			}
		}

		runCtx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); keeper.Run(runCtx) }()
		defer func() { stop(); <-done }()

		earlier := createOnDay(t, s, 5, in("Authorization retries overwhelmed hosts"))
		keeper.Queue(earlier.ID)
		deadline := time.Now().Add(time.Minute)
		for {
			refreshed, err := s.GetIncident(ctx, later.ID)
			if err != nil {
				t.Fatal(err)
			}
			got, err := keeper.For(ctx, refreshed)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) == 1 && got[0].ID == earlier.ID {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("a minute after the earlier incident was filed, the later one suggests %+v", got)
			}
			time.Sleep(10 * time.Millisecond) // polling the kept ranking the keeper writes
		}
		if got, err := keeper.For(ctx, unrelated); err != nil || len(got) != 0 {
			t.Errorf("the unrelated incident suggests %+v (%v)", got, err)
		}
	})
}
