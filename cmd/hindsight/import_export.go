package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"hindsight/models"
	"hindsight/models/cstate"
	"hindsight/models/importer"
	"hindsight/models/native"
	"hindsight/models/statuspage"
)

const importUsage = `Usage:
  hindsight import statuspage FILE [flags]   Atlassian Statuspage v2 JSON (incidents.json or one incident)
  hindsight import cstate DIR|FILE [flags]   cState Markdown incidents
  hindsight import native FILE [flags]       a hindsight export, into an empty database

Flags:
  --dry-run               show what would change and write nothing
  --skip-invalid          import the valid records when some are invalid
  --include-maintenance   import planned maintenance as incidents (by default it is kept as planned maintenance)
  --verbose               list every record
  --database URL          SQLite file or postgres:// URL (env HINDSIGHT_DATABASE_URL)
`

const exportUsage = `Usage:
  hindsight export FILE [--database URL]          write the whole database as JSON ("-" for stdout)
  hindsight export cstate DIR [--database URL]    write every public incident as a cState Markdown file
  hindsight export statuspage FILE [--database URL] [--base-url URL]
                                                  write the whole public history as a Statuspage
                                                  incidents.json ("-" for stdout)
`

// importCommand reads incidents from a status page export, or restores a native export.
func importCommand(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.SetOutput(stdout)
	fs.Usage = func() { fmt.Fprint(stdout, importUsage) }
	dryRun := fs.Bool("dry-run", false, "show what would change and write nothing")
	skipInvalid := fs.Bool("skip-invalid", false, "import the valid records when some are invalid")
	maintenance := fs.Bool("include-maintenance", false, "import planned maintenance as incidents instead of as planned maintenance")
	verbose := fs.Bool("verbose", false, "list every record")
	database := databaseFlag(fs)
	positional, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(positional) != 2 {
		fmt.Fprint(stdout, importUsage)
		return errors.New("import needs a format and a file")
	}
	format, path := positional[0], positional[1]

	if format == "native" {
		return importNative(ctx, path, *database, *dryRun, stdout)
	}
	var records []importer.Record
	switch format {
	case "statuspage":
		records, err = statuspage.ParseFile(path, statuspage.ParseOptions{IncludeMaintenance: *maintenance})
	case "cstate":
		records, err = readCState(path, cstate.ParseOptions{IncludeMaintenance: *maintenance})
	default:
		fmt.Fprint(stdout, importUsage)
		return fmt.Errorf("unknown import format %q; use statuspage, cstate or native", format)
	}
	if err != nil {
		return err
	}
	store, _, err := openStore(ctx, *database)
	if err != nil {
		return err
	}
	defer store.Close()
	// History shows what came from where.
	ctx = models.WithActor(ctx, models.Actor{Label: "import " + format + " " + filepath.Base(path)})
	summary, runErr := importer.Run(ctx, store, records, importer.Options{DryRun: *dryRun, SkipInvalid: *skipInvalid})
	if err := summary.Write(stdout, *verbose); err != nil {
		return err
	}
	if importer.IsInvalid(runErr) {
		return errors.New("invalid records, nothing was written; fix them or use --skip-invalid to import the others")
	}
	return runErr
}

// readCState reads a folder of cState files, or one file.
func readCState(path string, opts cstate.ParseOptions) ([]importer.Record, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		return cstate.ParseDir(path, opts)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return []importer.Record{cstate.Parse(data, filepath.Base(path), opts)}, nil
}

func importNative(ctx context.Context, path, database string, dryRun bool, stdout io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	name := filepath.Base(path)
	var summary native.Summary
	if dryRun {
		summary, err = native.Check(f, name)
	} else {
		store, _, openErr := openStore(ctx, database)
		if openErr != nil {
			return openErr
		}
		defer store.Close()
		summary, err = native.Import(ctx, store, f, name)
	}
	if errors.Is(err, models.ErrNotEmpty) {
		return fmt.Errorf("%w: a native import restores into an empty database; give --database a new SQLite file or an empty PostgreSQL database", err)
	}
	if err != nil {
		return err
	}
	verb := "restored"
	if dryRun {
		verb = "checked, nothing written:"
	}
	fmt.Fprintf(stdout, "%s %d incident(s) with %d timeline event(s), %d impact window(s), %d follow-up(s) and %d link(s); %d service(s), %d region(s), %d factor(s), %d history entries; %d postmortem version(s), %d setting(s) and %d row(s) of the status page, integrations, webhooks and milestone sources\n",
		verb, summary.Incidents, summary.Events, summary.Windows, summary.FollowUps, summary.Links, summary.Services, summary.Regions, summary.Factors, summary.History,
		summary.Versions, summary.Settings, summary.Rows)
	return nil
}

// exportCommand writes the whole database as native JSON, to a file or to stdout.
func exportCommand(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(stdout)
	fs.Usage = func() { fmt.Fprint(stdout, exportUsage) }
	database := databaseFlag(fs)
	baseURL := fs.String("base-url", env("HINDSIGHT_BASE_URL", ""), "where people reach Hindsight, for the status page's links when the settings name none (env HINDSIGHT_BASE_URL)")
	statusHost := fs.String("status-host", env("HINDSIGHT_STATUS_HOST", ""), "the status page's own host name, when the settings name none (env HINDSIGHT_STATUS_HOST)")
	positional, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	cstateDir := len(positional) == 2 && positional[0] == "cstate"
	statuspageFile := len(positional) == 2 && positional[0] == "statuspage"
	if len(positional) != 1 && !cstateDir && !statuspageFile {
		fmt.Fprint(stdout, exportUsage)
		return errors.New("export needs a file name, or - for stdout, or cstate and a folder, or statuspage and a file")
	}
	if problem := models.BaseURLProblem(*baseURL); problem != "" {
		return fmt.Errorf("--base-url %q: %s", *baseURL, problem)
	}
	store, _, err := openStore(ctx, *database)
	if err != nil {
		return err
	}
	defer store.Close()
	if cstateDir {
		return exportCState(ctx, store, positional[1], stdout)
	}
	if statuspageFile {
		return exportStatuspage(ctx, store, positional[1], *baseURL, *statusHost, stdout)
	}
	path := positional[0]
	if path == "-" {
		return native.Export(ctx, store, stdout)
	}
	// Write beside the target and rename, so a failed export never leaves half a backup.
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := native.Export(ctx, store, tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", path)
	return nil
}

// parseInterleaved parses flags wherever they appear among the arguments, so both
// "import cstate DIR --dry-run" and "import --dry-run cstate DIR" work; "--" ends the flags.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if len(args) > 0 && len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// exportCState writes every public incident into dir as a cState Markdown file, each written
// beside its name and renamed, so a failed export leaves no half-written file.
func exportCState(ctx context.Context, store *models.Store, dir string, stdout io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	const page = 500
	written := 0
	for offset := 0; ; offset += page {
		incidents, _, err := store.PublicIncidents(ctx, models.PublicFilter{Limit: page, Offset: offset})
		if err != nil {
			return err
		}
		for n := range incidents {
			if err := writeFileAtomic(filepath.Join(dir, cstate.FileName(&incidents[n])), cstate.Export(&incidents[n])); err != nil {
				return err
			}
			written++
		}
		if len(incidents) < page {
			break
		}
	}
	fmt.Fprintf(stdout, "wrote %d cState file(s) to %s\n", written, dir)
	return nil
}

func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// exportStatuspage writes the whole public history as one Statuspage incidents.json, as the
// status page's API shows each incident; written beside the target and renamed.
func exportStatuspage(ctx context.Context, store *models.Store, path, baseURL, statusHost string, stdout io.Writer) error {
	settings, err := store.StatusSettings(ctx)
	if err != nil {
		return err
	}
	base := models.NormalBaseURL(settings.BaseURL)
	if base == "" {
		base = models.NormalBaseURL(baseURL)
	}
	if base == "" {
		base = "http://localhost:8080"
	}
	host := models.NormalHost(settings.StatusHost)
	if host == "" {
		host = models.NormalHost(statusHost)
	}
	updated, err := store.PublicUpdatedAt(ctx)
	if err != nil {
		return err
	}
	page := statuspage.PageInfo(settings, models.StatusURL(base, host), updated)
	doc, err := statuspage.ExportHistory(ctx, store, page, settings.Location())
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if path == "-" {
		_, err := stdout.Write(data)
		return err
	}
	if err := writeFileAtomic(path, data); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d incident(s) to %s\n", len(doc.Incidents), path)
	return nil
}
