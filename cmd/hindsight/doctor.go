package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"hindsight/models"
)

// doctorCommand recomputes the derived tables from the base tables and compares, printing one
// line per table; with --repair it rewrites what differs, in one transaction, then checks again.
// It fails when something differs (after a repair: when something still does).
func doctorCommand(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	database := databaseFlag(fs)
	repair := fs.Bool("repair", false, "rewrite the rows that differ, in one transaction")
	if err := fs.Parse(args); err != nil {
		return err
	}
	store, _, err := openStore(ctx, *database)
	if err != nil {
		return err
	}
	defer store.Close()
	if *repair {
		report, err := store.DoctorRepair(ctx)
		if err != nil {
			return err
		}
		rewrote := false
		for _, t := range report.Tables {
			if t.Differ > 0 {
				rewrote = true
				fmt.Fprintf(stdout, "%s: rewrote %d %s\n", t.Name, t.Rewritten, rows(t.Rewritten))
				for _, e := range t.Examples {
					fmt.Fprintf(stdout, "    %s\n", e)
				}
			}
		}
		if !rewrote {
			fmt.Fprintln(stdout, "nothing to repair")
		}
	}
	report, err := store.Doctor(ctx)
	if err != nil {
		return err
	}
	printDoctor(stdout, report)
	if !report.OK() {
		return fmt.Errorf("%w: run hindsight doctor --repair", models.ErrDoctorFound)
	}
	return nil
}

func printDoctor(w io.Writer, report models.DoctorReport) {
	for _, t := range report.Tables {
		if t.Differ == 0 {
			fmt.Fprintf(w, "%s: ok (%d %s; %s)\n", t.Name, t.Rows, rows(t.Rows), t.Checked)
			continue
		}
		verb := "differ"
		if t.Differ == 1 {
			verb = "differs"
		}
		fmt.Fprintf(w, "%s: %d %s %s\n", t.Name, t.Differ, rows(t.Differ), verb)
		for _, e := range t.Examples {
			fmt.Fprintf(w, "    %s\n", e)
		}
	}
	for _, skip := range report.NotChecked {
		fmt.Fprintf(w, "%s: not checked: %s\n", skip.Table, strings.TrimSuffix(skip.Reason, "."))
	}
}

func rows(n int) string {
	if n == 1 {
		return "row"
	}
	return "rows"
}
