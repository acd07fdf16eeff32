package main

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
	"hindsight/models/webhooktest"
)

// TestWebhookDeliveriesSurviveAKill runs the real server with its delivery workers off, so the
// deliveries its writes queue stay pending, kills it with SIGKILL, and starts it again (on
// PostgreSQL as two instances at once): a receiver checking every message with npm's
// standardwebhooks gets each delivery exactly once, and the database says each was delivered.
func TestWebhookDeliveriesSurviveAKill(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		webhookKillTest(t, filepath.Join(t.TempDir(), "hooks.db"), 1)
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := storetest.PostgresURL(t)
		if dsn == "" {
			t.Skip(storetest.PostgresEnv + " is not set")
		}
		webhookKillTest(t, dsn, 2)
	})
}

func webhookKillTest(t *testing.T, database string, instances int) {
	const writes = 12
	ctx := context.Background()
	bin := buildBinary(t)
	token := createUserAndToken(t, database, "hooks@example.com")
	receiver := webhooktest.Start(t, 0)
	store, err := models.Open(ctx, database)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.MigrateUp(ctx); err != nil {
		t.Fatal(err)
	}
	ep, err := store.CreateWebhookEndpoint(ctx, models.WebhookEndpointInput{URL: receiver.URL, Events: []string{models.EventIncidentCreated}, Format: models.WebhookStandard}, true)
	if err != nil {
		t.Fatal(err)
	}
	store.Close()
	receiver.SetSecret(t, ep.Secret)

	srv := startServer(t, bin, database, "--webhook-workers", "0", "--webhooks-allow-private")
	api := newAPIClient(token)
	for n := range writes {
		var created apiIncident
		status, err := api.call(ctx, http.MethodPost, srv.URL+"/api/v1/incidents", incidentBody(fmt.Sprintf("Webhook kill test %d", n), 0), &created)
		if err != nil || status != http.StatusCreated {
			t.Fatalf("create %d: %d %v", n, status, err)
		}
	}
	srv.kill()
	messageIDs := deliveryMessages(t, database, ep.ID, models.DeliveryPending)
	if len(messageIDs) != writes {
		t.Fatalf("%d deliveries pending after the kill, want %d", len(messageIDs), writes)
	}
	if got := receiver.Messages(); len(got) != 0 {
		t.Fatalf("a server without workers delivered %d", len(got))
	}

	var servers []*serverProcess
	for range instances {
		servers = append(servers, startServer(t, bin, database, "--webhooks-allow-private"))
	}
	receiver.WaitFor(t, 60*time.Second, fmt.Sprintf("%d deliveries after the restart", writes), func(m []webhooktest.Message) bool { return len(m) >= writes })
	deadline := time.Now().Add(60 * time.Second)
	for len(deliveryMessages(t, database, ep.ID, models.DeliveryDelivered)) < writes {
		if time.Now().After(deadline) {
			t.Fatal("the deliveries were received but not all recorded as delivered")
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, s := range servers {
		s.stop() // finishes whatever it has in flight
	}
	received := map[string]int{}
	for _, m := range receiver.Messages() {
		received[m.ID]++
	}
	for _, id := range messageIDs {
		if received[id] != 1 {
			t.Errorf("message %s received %d times", id, received[id])
		}
	}
	if len(received) != writes || len(receiver.Refused()) != 0 {
		t.Errorf("received %d distinct messages (want %d), refused %v", len(received), writes, receiver.Refused())
	}
}

// deliveryMessages lists the message ids of the endpoint's deliveries in a state, read through
// a store of the test's own.
func deliveryMessages(t *testing.T, database string, endpointID int64, state string) []string {
	t.Helper()
	store, err := models.Open(context.Background(), database)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	list, err := store.WebhookDeliveries(context.Background(), endpointID, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range list {
		if d.State == state {
			ids = append(ids, d.MessageID)
		}
	}
	return ids
}
