package language_test

import (
	"strings"
	"testing"

	"hindsight/models/language"
)

// BenchmarkCheckMegabyte checks a megabyte of ordinary prose, the API's largest body.
func BenchmarkCheckMegabyte(b *testing.B) {
	text := strings.Repeat("Health checks then made it worse: they flag a slow machine as sick and pull it from service. ", (1<<20)/95)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		language.Check(text, nil)
	}
}
