package web_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"hindsight/handlers"
	"hindsight/models"
	"hindsight/models/storetest"
)

// BenchmarkAlertmanagerWebhook500 files one Alertmanager notification of 500 firing alerts, a
// new group each time: it opens an incident with 500 timeline entries and their history, in one
// transaction, through the whole server. The issue asks for under 1 s.
func BenchmarkAlertmanagerWebhook500(b *testing.B) {
	s := storetest.SQLite(b)
	a := serverOn(b, s)
	secret, am := newIntegration(b, s, models.IntegrationInput{Kind: models.IntegrationAlertmanager, Name: "bench"})
	path := handlers.AlertReceiverPath(am.ID)
	fps := make([]string, 500)
	for n := range fps {
		fps[n] = fmt.Sprintf("fp%03d", n)
	}
	started := time.Now().Add(-time.Hour)
	bodies := make([]string, b.N)
	for n := range bodies {
		bodies[n] = amBody(fmt.Sprintf("group-%d", n), "firing", started, time.Time{}, fps...)
	}
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		if r := a.postAlert(path, bodies[n], bearer(secret)); r.status != http.StatusOK {
			b.Fatalf("status %d: %.300s", r.status, r.body)
		}
	}
}
