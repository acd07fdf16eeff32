// Package static holds the stylesheet, icons and the one small script, embedded into the binary.
package static

import "embed"

// FS serves /static.
//
//go:embed *.css *.svg *.js
var FS embed.FS
