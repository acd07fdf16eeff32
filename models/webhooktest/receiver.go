// Package webhooktest runs a webhook receiver for tests that checks every delivery with npm's
// standardwebhooks package, the Standard Webhooks authors' own library, not Hindsight's code.
package webhooktest

import (
	"bufio"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// receiverScript listens on a loopback port, prints it, and for each POST prints one JSON line:
// the verified message, or why it was refused (and answers 401). The secret is read from a file
// at each request so the test can start the receiver before it knows the endpoint's secret.
// The first FAIL_FIRST verified requests are answered 500, for retry tests.
const receiverScript = `
const http = require('http');
const fs = require('fs');
const { Webhook } = require('standardwebhooks');
let failFirst = Number(process.env.FAIL_FIRST || '0');
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    let payload;
    try {
      const secret = fs.readFileSync(process.env.SECRET_FILE, 'utf8').trim();
      payload = new Webhook(secret).verify(body, req.headers);
    } catch (err) {
      process.stdout.write(JSON.stringify({ ok: false, error: String(err && err.message || err) }) + '\n');
      res.writeHead(401, { 'content-type': 'text/plain' });
      res.end('signature refused');
      return;
    }
    const failed = failFirst > 0;
    if (failed) failFirst--;
    process.stdout.write(JSON.stringify({ ok: true, failed, id: req.headers['webhook-id'], payload }) + '\n');
    res.writeHead(failed ? 500 : 200, { 'content-type': 'text/plain' });
    res.end(failed ? 'try again later' : 'thanks');
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write('listening ' + server.address().port + '\n');
});
`

// Message is a delivery the library verified.
type Message struct {
	ID      string          `json:"id"`
	Failed  bool            `json:"failed"` // answered 500 on purpose
	Payload json.RawMessage `json:"payload"`
	Type    string          `json:"-"`
}

// Receiver is a running node receiver.
type Receiver struct {
	URL        string
	secretFile string
	cmd        *exec.Cmd

	mu       sync.Mutex
	messages []Message
	refused  []string
	changed  chan struct{}
}

// Start runs the receiver, answering the first failFirst verified deliveries with 500. It skips
// when node or the package is missing, unless HINDSIGHT_REQUIRE_BROWSER asks for every real
// program (as CI does).
func Start(t testing.TB, failFirst int) *Receiver {
	t.Helper()
	required := os.Getenv("HINDSIGHT_REQUIRE_BROWSER") != ""
	node, err := exec.LookPath("node")
	if err != nil {
		if required {
			t.Fatal("node is not installed; .ci/run installs it")
		}
		t.Skip("node is not installed; deliveries are not checked with standardwebhooks")
	}
	modules := filepath.Join(repoRoot(t), ".ci", "standardwebhooks", "node_modules")
	if _, err := os.Stat(filepath.Join(modules, "standardwebhooks")); errors.Is(err, fs.ErrNotExist) {
		msg := "standardwebhooks is not installed in " + modules + " (npm install --no-save --prefix .ci/standardwebhooks standardwebhooks@1.1.1, as .ci/run does)"
		if required {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	r := &Receiver{secretFile: filepath.Join(t.TempDir(), "secret"), changed: make(chan struct{}, 1)}
	if err := os.WriteFile(r.secretFile, []byte("whsec_MDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAw"), 0o600); err != nil {
		t.Fatal(err)
	}
	r.cmd = exec.Command(node, "-e", receiverScript)
	r.cmd.Env = append(os.Environ(), "NODE_PATH="+modules, "SECRET_FILE="+r.secretFile, "FAIL_FIRST="+itoa(failFirst))
	r.cmd.Stderr = os.Stderr
	out, err := r.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.cmd.Process.Kill(); _ = r.cmd.Wait() })
	ports := make(chan string, 1)
	go func() {
		scanner := bufio.NewScanner(out)
		scanner.Buffer(make([]byte, 64*1024), 4<<20)
		for scanner.Scan() {
			line := scanner.Text()
			if port, ok := strings.CutPrefix(line, "listening "); ok {
				ports <- port
				continue
			}
			var rec struct {
				OK    bool   `json:"ok"`
				Error string `json:"error"`
				Message
			}
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				continue
			}
			r.mu.Lock()
			if rec.OK {
				var head struct {
					Type string `json:"type"`
				}
				_ = json.Unmarshal(rec.Payload, &head)
				rec.Message.Type = head.Type
				r.messages = append(r.messages, rec.Message)
			} else {
				r.refused = append(r.refused, rec.Error)
			}
			r.mu.Unlock()
			select {
			case r.changed <- struct{}{}:
			default:
			}
		}
	}()
	select {
	case port := <-ports:
		r.URL = "http://127.0.0.1:" + port + "/hooks"
	case <-time.After(30 * time.Second):
		t.Fatal("the node receiver did not start")
	}
	return r
}

// SetSecret is the endpoint secret the receiver verifies with from now on.
func (r *Receiver) SetSecret(t testing.TB, secret string) {
	t.Helper()
	if err := os.WriteFile(r.secretFile, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Messages is every verified delivery so far, in arrival order.
func (r *Receiver) Messages() []Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Message(nil), r.messages...)
}

// Refused is why each refused delivery was refused.
func (r *Receiver) Refused() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.refused...)
}

// WaitFor waits until done holds for the verified messages, failing the test after timeout.
func (r *Receiver) WaitFor(t testing.TB, timeout time.Duration, what string, done func([]Message) bool) []Message {
	t.Helper()
	deadline := time.After(timeout)
	for {
		if got := r.Messages(); done(got) {
			return got
		}
		select {
		case <-r.changed:
		case <-deadline:
			t.Fatalf("waited %s for %s; received %d verified, refused %v", timeout, what, len(r.Messages()), r.Refused())
		}
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func repoRoot(t testing.TB) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = parent
	}
}
