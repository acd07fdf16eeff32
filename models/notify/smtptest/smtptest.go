// Package smtptest runs a real SMTP server for tests: Debian's python3-aiosmtpd, writing every
// message it accepts to a maildir the test reads.
package smtptest

import (
	"bytes"
	"context"
	"io"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Python is the interpreter with aiosmtpd: Debian's own, not whatever python3 is first on PATH.
const Python = "/usr/bin/python3"

// Server is a running aiosmtpd.
type Server struct {
	Addr string // host:port
	Dir  string // the maildir
	cmd  *exec.Cmd
}

// FreeAddr returns a loopback address nothing listens on now.
func FreeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// Start runs aiosmtpd on addr (FreeAddr when empty) until the test ends. Without aiosmtpd the
// test fails: the issue asks for a real server, and .ci/run installs it.
func Start(t testing.TB, addr string) *Server {
	t.Helper()
	if err := exec.Command(Python, "-c", "import aiosmtpd").Run(); err != nil {
		t.Fatalf("%s has no aiosmtpd (apt-get install python3-aiosmtpd): %v", Python, err)
	}
	if addr == "" {
		addr = FreeAddr(t)
	}
	dir := filepath.Join(t.TempDir(), "maildir")
	s := &Server{Addr: addr, Dir: dir}
	var logs bytes.Buffer
	s.cmd = exec.Command(Python, "-m", "aiosmtpd", "-n", "-l", addr, "-c", "aiosmtpd.handlers.Mailbox", dir)
	s.cmd.Stdout, s.cmd.Stderr = &logs, &logs
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	// Ready once it answers with its greeting.
	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			buf := make([]byte, 3)
			_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			_, rerr := conn.Read(buf)
			conn.Close()
			if rerr == nil && string(buf) == "220" {
				return s
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("aiosmtpd on %s did not start: %s", addr, logs.String())
		}
		waitABit()
	}
}

// waitABit yields between readiness probes of a process the test does not control.
func waitABit() { <-time.After(20 * time.Millisecond) }

// Stop ends the server.
func (s *Server) Stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
		s.cmd = nil
	}
}

// Message is one message as it arrived.
type Message struct {
	Header mail.Header
	Body   string // decoded from quoted-printable when so encoded
	Raw    []byte
}

// Messages reads what arrived, in the order it arrived.
func (s *Server) Messages(t testing.TB) []Message {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(s.Dir, "new"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	type file struct {
		name string
		mod  time.Time
	}
	var files []file
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, file{e.Name(), info.ModTime()})
	}
	// Maildir names begin with the delivery time in seconds; ties are broken by modification time.
	sort.Slice(files, func(a, b int) bool {
		if !files[a].mod.Equal(files[b].mod) {
			return files[a].mod.Before(files[b].mod)
		}
		return files[a].name < files[b].name
	})
	var out []Message
	for _, f := range files {
		raw, err := os.ReadFile(filepath.Join(s.Dir, "new", f.name))
		if err != nil {
			t.Fatal(err)
		}
		m, err := mail.ReadMessage(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("parse %s: %v", f.name, err)
		}
		body, err := decodeBody(m)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, Message{Header: m.Header, Body: body, Raw: raw})
	}
	return out
}

// WaitFor waits until at least n messages have arrived and returns them.
func (s *Server) WaitFor(t testing.TB, ctx context.Context, n int) []Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		if msgs := s.Messages(t); len(msgs) >= n {
			return msgs
		}
		select {
		case <-ctx.Done():
			t.Fatalf("waited for %d messages, have %d", n, len(s.Messages(t)))
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Port is the server's port.
func (s *Server) Port() int {
	_, port, _ := net.SplitHostPort(s.Addr)
	n, _ := strconv.Atoi(port)
	return n
}

func decodeBody(m *mail.Message) (string, error) {
	raw, err := io.ReadAll(m.Body)
	if err != nil {
		return "", err
	}
	if strings.EqualFold(m.Header.Get("Content-Transfer-Encoding"), "quoted-printable") {
		raw, err = io.ReadAll(quotedprintable.NewReader(bytes.NewReader(raw)))
		if err != nil {
			return "", err
		}
	}
	return strings.ReplaceAll(string(raw), "\r\n", "\n"), nil
}
