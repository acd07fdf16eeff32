package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestBaseURLFlag: --base-url names the setup link the server logs on a database without
// accounts, and a base URL that links cannot be built on is refused before serving.
func TestBaseURLFlag(t *testing.T) {
	db := filepath.Join(t.TempDir(), "base.db")
	for _, bad := range []string{"ftp://hindsight.example.org", "https://hindsight.example.org/?a=1", "hindsight.example.org"} {
		if _, err := runCLI(t, "", "serve", "--addr", "127.0.0.1:0", "--database", db, "--base-url", bad); err == nil || !strings.Contains(err.Error(), "--base-url") {
			t.Errorf("--base-url %q: %v, want refused", bad, err)
		}
	}
	p := startServer(t, buildBinary(t), db, "--base-url", "https://hindsight.example.org/")
	if log := p.log(); !strings.Contains(log, `url="https://hindsight.example.org/setup?token=`) {
		t.Errorf("the setup link is not on the base URL:\n%s", log)
	}
	p.stop()
}
