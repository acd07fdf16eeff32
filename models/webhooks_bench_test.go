package models_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
)

// BenchmarkCreateEventWithWebhook adds timeline entries with no endpoint, with an endpoint that
// does not want timeline.created, and with one that does, its deliveries left queued or sent
// meanwhile by the delivery workers to a receiver that takes 20 ms to answer: the write pays
// for queueing the delivery in its own transaction (a read of the endpoints and an insert),
// never for sending it. On SQLite the workers' claim and record share the one write connection
// with the writes, which the last case shows.
//
//	go test ./models -run '^$' -bench BenchmarkCreateEventWithWebhook -benchtime 300x
func BenchmarkCreateEventWithWebhook(b *testing.B) {
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(20 * time.Millisecond) // a receiver that takes its time
		w.WriteHeader(http.StatusNoContent)
	}))
	defer slow.Close()
	for _, c := range []struct {
		name    string
		events  []string // nil: no endpoint
		workers int
	}{
		{"no endpoint", nil, 0},
		{"endpoint not wanting it", []string{models.EventIncidentCreated}, 0},
		{"endpoint wanting it, queued", []string{models.EventTimelineCreated}, 0},
		{"endpoint wanting it, sent meanwhile", []string{models.EventTimelineCreated}, 2},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := storetest.SQLite(b)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if c.events != nil {
				if _, err := s.CreateWebhookEndpoint(ctx, models.WebhookEndpointInput{URL: slow.URL, Events: c.events, Format: models.WebhookStandard}, true); err != nil {
					b.Fatal(err)
				}
			}
			if c.workers > 0 {
				done := make(chan struct{})
				go func() {
					defer close(done)
					s.RunWebhookDeliveries(ctx, models.DeliveryOptions{Workers: c.workers, AllowPrivate: true, Poll: time.Second, OverdueEvery: time.Hour})
				}()
				defer func() { cancel(); <-done }()
			}
			in := models.IncidentInput{Title: "Benchmark", Severity: "sev3", Status: "investigating", TimeZone: "UTC", PostmortemState: "none"}
			var incidentID int64
			at := time.Date(2026, 3, 12, 17, 0, 0, 0, time.UTC)
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				if n%1000 == 0 { // an incident holds at most 2,000 entries
					b.StopTimer()
					inc, err := s.CreateIncident(ctx, in, models.Children{})
					if err != nil {
						b.Fatal(err)
					}
					incidentID = inc.ID
					b.StartTimer()
				}
				n++
				if _, err := s.CreateEvent(ctx, incidentID, models.EventInput{At: at.Add(time.Duration(n) * time.Second), Kind: "action", Body: "Shifted traffic away from the Toronto region"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
