// Package migrations holds the versioned SQL schema of Hindsight, one folder per database dialect.
package migrations

import "embed"

// FS holds sqlite/*.sql and postgres/*.sql; goose reads them through a sub-filesystem.
//
//go:embed sqlite/*.sql postgres/*.sql
var FS embed.FS
