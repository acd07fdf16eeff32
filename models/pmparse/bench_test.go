//go:build unix

package pmparse_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"hindsight/models/pmparse"
)

// BenchmarkParse100KB parses the fixtures run together to 100 KB.
func BenchmarkParse100KB(b *testing.B) {
	var text strings.Builder
	var files []string
	for _, dir := range []string{fixtures(b, "seeds"), fixtures(b, filepath.Join("data", "postmortems"))} {
		m, _ := filepath.Glob(filepath.Join(dir, "*"))
		files = append(files, m...)
	}
	for text.Len() < 100<<10 {
		for _, f := range files {
			if raw, err := os.ReadFile(f); err == nil && !strings.HasSuffix(f, "LICENSE") {
				text.Write(raw)
				text.WriteString("\n\n")
			}
		}
	}
	input := text.String()[:100<<10]
	b.SetBytes(int64(len(input)))
	start := cpuTime()
	n := 0
	for b.Loop() {
		if _, err := pmparse.Parse(input, time.UTC); err != nil {
			b.Fatal(err)
		}
		n++
	}
	// The machine may be shared: the process's CPU time per parse says what the parse costs
	// when wall time does not.
	b.ReportMetric(float64((cpuTime()-start).Nanoseconds())/float64(n), "cpu-ns/op")
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
