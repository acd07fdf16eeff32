package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"hindsight/handlers"
	"hindsight/models"
)

// integrationCommand creates an alerting integration: the receiver's address on one line, and
// its secret alone on the last line, the only time it is shown.
func integrationCommand(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) == 0 || args[0] != "create" {
		return errors.New("integration needs create")
	}
	fs := flag.NewFlagSet("integration create", flag.ContinueOnError)
	kind := fs.String("kind", "", "alertmanager, grafana, pagerduty or generic")
	name := fs.String("name", "", "which alerting system this is")
	mapping := fs.String("mapping", "", `for generic: JSON of field to dotted path, e.g. {"title":"name","dedup_key":"id","status":"state"}`)
	baseURL := fs.String("base-url", env("HINDSIGHT_BASE_URL", ""), "where Hindsight is reached, when the settings page names none (env HINDSIGHT_BASE_URL)")
	database := databaseFlag(fs)
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	in := models.IntegrationInput{Kind: *kind, Name: *name, Mapping: *mapping}
	if errs := in.Check(); len(errs) > 0 {
		var parts []string
		for _, e := range errs {
			parts = append(parts, "--"+e.Field+": "+e.Message)
		}
		return errors.New(strings.Join(parts, "; "))
	}
	store, _, err := openStore(ctx, *database)
	if err != nil {
		return err
	}
	defer store.Close()
	settings, err := store.StatusSettings(ctx)
	if err != nil {
		return err
	}
	base := models.NormalBaseURL(settings.BaseURL)
	if base == "" {
		base = models.NormalBaseURL(*baseURL)
	}
	if base == "" {
		base = "http://localhost:8080"
	}
	secret, integ, err := store.CreateIntegration(ctx, in)
	if err != nil {
		return err
	}
	how := "send it as Authorization: Bearer <secret>"
	if integ.Kind == models.IntegrationPagerDuty {
		how = "it signs X-PagerDuty-Signature"
	}
	fmt.Fprintf(stdout, "%s integration %q; %s. The receiver, then the secret, shown only this once:\n", integ.Kind, integ.Name, how)
	fmt.Fprintf(stdout, "%s%s\n", strings.TrimSuffix(base, "/"), handlers.AlertReceiverPath(integ.ID))
	fmt.Fprintln(stdout, secret)
	return nil
}
