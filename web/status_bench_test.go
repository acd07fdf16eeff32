package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/cookiejar"
	"os"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/importer"
	"hindsight/models/statuspage"
	"hindsight/models/storetest"
	"hindsight/web"
)

// githubHistory is GitHub's whole public incident history, 1,282 incidents, from the shared data
// laid beside the project.
const githubHistory = "../../shared/data/statuspage/github_incidents_all.json"

// githubStatusApp serves a SQLite database holding GitHub's whole history, to a visitor.
func githubStatusApp(b *testing.B) *app {
	b.Helper()
	if _, err := os.Stat(githubHistory); err != nil {
		b.Skipf("no shared data beside the project: %v", err)
	}
	store := storetest.SQLite(b)
	records, err := statuspage.ParseFile(githubHistory, statuspage.ParseOptions{})
	if err != nil {
		b.Fatal(err)
	}
	summary, err := importer.Run(context.Background(), store, records, importer.Options{})
	if err != nil || summary.Created != 1282 {
		b.Fatalf("import: %v, created %d", err, summary.Created)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	jar, _ := cookiejar.New(nil)
	return &app{t: b, e: web.New(web.Deps{Store: store, Log: log, BaseURL: "https://hindsight.example.com"}), store: store, jar: jar}
}

// renameStatusPage saves the settings with another name: a write through the store that moves
// the change mark, so the next answer is built again from the records.
func renameStatusPage(a *app) func(*testing.B) {
	names := []string{"GitHub", "GitHub status"}
	n := 0
	return func(b *testing.B) {
		n++
		if err := a.store.SaveStatusSettings(context.Background(), models.StatusSettings{Name: names[n%2], TimeZone: "UTC"}); err != nil {
			b.Fatal(err)
		}
	}
}

// updateNewestIncident writes a timeline entry to the newest public incident, as a responder
// does during an incident: a write to one incident that moves the change mark.
func updateNewestIncident(a *app) func(*testing.B) {
	return func(b *testing.B) {
		ctx := context.Background()
		list, _, err := a.store.PublicIncidentList(ctx, 1, 0)
		if err != nil || len(list) == 0 {
			b.Fatalf("newest public incident: %v", err)
		}
		in := models.EventInput{At: time.Now().UTC(), Kind: "action", Body: "Checked the replicas."}
		if _, err := a.store.CreateEvent(ctx, list[0].ID, in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStatusPage serves /status with GitHub's 1,282 incidents imported: kept (nothing
// changed since the last answer) and rebuilt after every write, a settings save or a timeline
// entry added to an incident. Profile the rebuilt page with
// go test ./web -run XXX -bench 'StatusPage/rebuilt' -cpuprofile cpu.prof.
func BenchmarkStatusPage(b *testing.B) {
	a := githubStatusApp(b)
	b.Run("kept", func(b *testing.B) { serveWithCPU(b, a, nil, "/status") })
	b.Run("rebuilt", func(b *testing.B) { serveWithCPU(b, a, renameStatusPage(a), "/status") })
	b.Run("rebuilt-after-incident-write", func(b *testing.B) { serveWithCPU(b, a, updateNewestIncident(a), "/status") })
}

// BenchmarkSummaryJSON serves summary.json at the root, where Statuspage clients look, and under
// /status, kept and rebuilt, with GitHub's history imported.
func BenchmarkSummaryJSON(b *testing.B) {
	a := githubStatusApp(b)
	for _, path := range []string{"/api/v2/summary.json", "/status/api/v2/summary.json"} {
		b.Run("kept"+path, func(b *testing.B) { serveWithCPU(b, a, nil, path) })
		b.Run("rebuilt"+path, func(b *testing.B) { serveWithCPU(b, a, renameStatusPage(a), path) })
	}
}
