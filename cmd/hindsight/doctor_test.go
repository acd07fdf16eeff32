package main

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"hindsight/models"
	"hindsight/models/storetest"
)

func TestDoctorCommand(t *testing.T) {
	databases := map[string]string{"sqlite": filepath.Join(t.TempDir(), "doctor.db")}
	if url := storetest.PostgresURL(t); url != "" {
		databases["postgres"] = url
	}
	for name, db := range databases {
		t.Run(name, func(t *testing.T) {
			if _, err := runCLI(t, "", "demo", "--database", db); err != nil {
				t.Fatal(err)
			}
			out, err := runCLI(t, "", "doctor", "--database", db)
			if err != nil || !strings.Contains(out, "incident_factors recurrence copy (started_unix, live): ok (") ||
				!strings.Contains(out, "incident_versions: not checked: ") || strings.Contains(out, "differ") {
				t.Fatalf("doctor on a fresh database: %v\n%s", err, out)
			}

			store, err := models.Open(context.Background(), db)
			if err != nil {
				t.Fatal(err)
			}
			sqlDB, err := store.SQLDB()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := sqlDB.Exec("UPDATE incident_factors SET started_unix = started_unix + 5 WHERE started_unix IS NOT NULL"); err != nil {
				t.Fatal(err)
			}
			store.Close()

			out, err = runCLI(t, "", "doctor", "--database", db)
			if !errors.Is(err, models.ErrDoctorFound) || !strings.Contains(out, "incident_factors recurrence copy (started_unix, live): ") || !(strings.Contains(out, " differ\n") || strings.Contains(out, " differs\n")) ||
				!strings.Contains(out, "started_unix stored ") || !strings.Contains(out, "follow_up_factors recurrence copy (fixed_unix, kind, live): ok (") {
				t.Fatalf("doctor after corrupting the recurrence copy: %v\n%s", err, out)
			}
			out, err = runCLI(t, "", "doctor", "--repair", "--database", db)
			if err != nil || !strings.Contains(out, "incident_factors recurrence copy (started_unix, live): rewrote ") || strings.Contains(out, "differ") {
				t.Fatalf("doctor --repair: %v\n%s", err, out)
			}
			out, err = runCLI(t, "", "doctor", "--database", db)
			if err != nil || strings.Contains(out, "differ") {
				t.Fatalf("doctor after the repair: %v\n%s", err, out)
			}
			out, err = runCLI(t, "", "doctor", "--repair", "--database", db)
			if err != nil || !strings.Contains(out, "nothing to repair") {
				t.Fatalf("doctor --repair with nothing to repair: %v\n%s", err, out)
			}
		})
	}
}
