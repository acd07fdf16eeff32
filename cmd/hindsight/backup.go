package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"hindsight/models"
)

// backupCommand writes a consistent copy of a SQLite database while the server may be running.
func backupCommand(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("backup", flag.ContinueOnError)
	database := databaseFlag(fs)
	// The file may come before or after the flags.
	var positional []string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		positional, args = args[:1], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	positional = append(positional, fs.Args()...)
	if len(positional) != 1 {
		return errors.New("backup needs one FILE to write, e.g. hindsight backup hindsight-2026-03-17.db")
	}
	// Open without migrating: a backup must not change the database it copies.
	store, err := models.Open(ctx, *database)
	if err != nil {
		return err
	}
	defer store.Close()
	start := time.Now()
	if err := store.Backup(ctx, positional[0]); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backed up %s to %s in %s\n", *database, positional[0], time.Since(start).Round(time.Millisecond))
	return nil
}
