package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// These helpers run the real hindsight binary, built from this package, as separate processes:
// what a crash, a restart or a second instance does can only be seen from outside the process.

// built is the binary, compiled once for all the tests of the package and removed after them.
var built struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// buildBinary compiles the command once. The build cache holds every package already, so this
// is a link.
func buildBinary(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH to build the binary with")
	}
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "hindsight-bin-"); built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "hindsight")
		if out, err := exec.Command(goTool, "build", "-o", built.path, ".").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// serverProcess is one running hindsight serve.
type serverProcess struct {
	t   *testing.T
	cmd *exec.Cmd
	URL string // http://127.0.0.1:PORT, no trailing slash

	mu     sync.Mutex
	stderr bytes.Buffer
	exited chan struct{}
}

var listeningPattern = regexp.MustCompile(`msg="Hindsight is listening[^"]*" url=(http://127\.0\.0\.1:\d+)/(\s|$)`)

// startServer starts hindsight serve on a free loopback port and waits until /readyz says ready.
func startServer(t *testing.T, bin, database string, extra ...string) *serverProcess {
	t.Helper()
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--database", database}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "HINDSIGHT_DATABASE_URL=", "HINDSIGHT_ADDR=")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &serverProcess{t: t, cmd: cmd, exited: make(chan struct{})}
	urls := make(chan string, 1)
	go func() {
		scanner := bufio.NewScanner(stderr)
		scanner.Buffer(make([]byte, 64*1024), 1024*1024)
		for scanner.Scan() {
			line := scanner.Text()
			p.mu.Lock()
			p.stderr.WriteString(line + "\n")
			p.mu.Unlock()
			if m := listeningPattern.FindStringSubmatch(line); m != nil {
				select {
				case urls <- m[1]:
				default:
				}
			}
		}
	}()
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		p.signal(syscall.SIGKILL)
		<-p.exited
		if t.Failed() {
			t.Logf("server log:\n%s", p.log())
		}
	})
	select {
	case p.URL = <-urls:
	case <-p.exited:
		t.Fatalf("server exited before listening:\n%s", p.log())
	case <-time.After(60 * time.Second):
		t.Fatalf("server did not say where it listens:\n%s", p.log())
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(p.URL + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("server never became ready:\n%s", p.log())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (p *serverProcess) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

func (p *serverProcess) signal(sig syscall.Signal) {
	select {
	case <-p.exited:
	default:
		_ = p.cmd.Process.Signal(sig)
	}
}

// kill ends the process at once, as a power cut or the OOM killer would, and waits for it.
func (p *serverProcess) kill() {
	p.signal(syscall.SIGKILL)
	<-p.exited
}

// stop asks the process to shut down gracefully and waits for it.
func (p *serverProcess) stop() {
	p.signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(40 * time.Second):
		p.t.Errorf("server did not stop within 40 s of SIGTERM")
		p.kill()
	}
}

// createUserAndToken makes a responder and an API token for them with the CLI.
func createUserAndToken(t *testing.T, database, email string) string {
	t.Helper()
	if out, err := runCLI(t, "correct horse battery staple\n", "user", "create", "--email", email, "--role", "responder", "--database", database); err != nil {
		t.Fatalf("user create: %v: %s", err, out)
	}
	out, err := runCLI(t, "", "token", "create", "--email", email, "--name", "test", "--database", database)
	if err != nil {
		t.Fatalf("token create: %v: %s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[len(lines)-1]
}

// apiClient talks to the JSON API with a token.
type apiClient struct {
	http  *http.Client
	token string
}

func newAPIClient(token string) *apiClient {
	return &apiClient{http: &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 32}}, token: token}
}

// apiIncident is the part of an API incident the tests read.
type apiIncident struct {
	ID      int64  `json:"id"`
	Version int    `json:"version"`
	Title   string `json:"title"`
}

// call sends a JSON request and decodes a JSON answer into out when the status is 2xx.
func (c *apiClient) call(ctx context.Context, method, url string, body any, out any) (int, error) {
	var r io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		r = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, r)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, err
	}
	if out != nil && resp.StatusCode/100 == 2 {
		if err := json.Unmarshal(raw, out); err != nil {
			return resp.StatusCode, fmt.Errorf("decode %s: %w", raw, err)
		}
	}
	return resp.StatusCode, nil
}

func incidentBody(title string, version int) map[string]any {
	body := map[string]any{
		"title": title, "severity": "sev2", "status": "investigating",
		"summary":    "Written by a test that kills the server while it writes.",
		"started_at": "2026-03-17T04:00:00Z", "detected_at": "2026-03-17T07:54:00Z",
		"services": []string{"Router"}, "regions": []string{"Europe"},
	}
	if version > 0 {
		body["version"] = version
	}
	return body
}
