package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/web"
)

// TestIntegrationCreatePrintsReceiverAndSecret: the command prints the receiver's address on a
// line of its own and the secret alone on the last line, and the pair works against a server;
// bad input is refused with the flag named.
func TestIntegrationCreatePrintsReceiverAndSecret(t *testing.T) {
	db := filepath.Join(t.TempDir(), "cli.db")
	out, err := runCLI(t, "", "integration", "create", "--kind", "alertmanager", "--name", "prod", "--base-url", "https://hindsight.example.com", "--database", db)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 2 {
		t.Fatalf("output %q", out)
	}
	receiver, secret := lines[len(lines)-2], lines[len(lines)-1]
	if receiver != "https://hindsight.example.com/api/v1/integrations/1/alerts" {
		t.Errorf("receiver line %q", receiver)
	}
	if !strings.HasPrefix(secret, models.IntegrationSecretPrefix) || strings.Contains(secret, " ") {
		t.Errorf("last line %q is not the secret alone", secret)
	}
	store, err := models.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if _, err := store.AuthenticateIntegration(context.Background(), 1, secret); err != nil {
		t.Errorf("the printed secret does not authenticate: %v", err)
	}
	srv := httptest.NewServer(web.New(web.Deps{Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	defer srv.Close()
	body := `{"version":"4","groupKey":"g","status":"firing","alerts":[{"status":"firing","labels":{"alertname":"Down"},"startsAt":"` + time.Now().UTC().Format(time.RFC3339) + `"}]}`
	req, _ := http.NewRequest(http.MethodPost, srv.URL+strings.TrimPrefix(receiver, "https://hindsight.example.com"), strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+secret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("receiver answered %s", resp.Status)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--kind", "nagios", "--name", "n"}, "--kind"},
		{[]string{"--kind", "grafana"}, "--name"},
		{[]string{"--kind", "generic", "--name", "g"}, "--mapping"},
		{[]string{"--kind", "generic", "--name", "g", "--mapping", "{"}, "--mapping"},
	} {
		args := append([]string{"integration", "create", "--database", db}, c.args...)
		if _, err := runCLI(t, "", args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error naming %s", c.args, err, c.want)
		}
	}
	if _, err := runCLI(t, "", "integration", "list"); err == nil {
		t.Errorf("integration list is not a command")
	}
}
