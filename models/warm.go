package models

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// warmConnections is how many read connections Warm runs the hot queries on at once: the SQLite
// read pool's size, so each connection has its statements prepared and its page cache filled.
const warmConnections = 8

// Warm runs the hot read queries (the first page of the incident list, the filter choices and
// the newest incident) once on each read connection, so the first visitors after a start do not
// pay for cold page caches and statements being prepared. It tries once: a failure is returned,
// not retried, and the server serves anyway (nothing here is needed for correct answers).
func (s *Store) Warm(ctx context.Context) error {
	var wg sync.WaitGroup
	errs := make([]error, warmConnections)
	for n := range warmConnections {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[n] = Safely(func() error { return s.warmOnce(ctx) })
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return fmt.Errorf("warm caches: %w", err)
		}
	}
	return nil
}

func (s *Store) warmOnce(ctx context.Context) error {
	incidents, _, err := s.ListIncidentSummaries(ctx, IncidentFilter{Limit: 50})
	if err != nil {
		return err
	}
	if _, err := s.ServiceNames(ctx); err != nil {
		return err
	}
	if _, err := s.RegionNames(ctx); err != nil {
		return err
	}
	if len(incidents) > 0 {
		if _, err := s.GetIncident(ctx, incidents[0].ID); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
	}
	return nil
}
