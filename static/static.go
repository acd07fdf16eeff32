// Package static holds the stylesheet and icons, embedded into the binary.
package static

import "embed"

// FS serves /static.
//
//go:embed *.css *.svg
var FS embed.FS
