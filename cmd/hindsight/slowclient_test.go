package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// slowBody opens a connection from a loopback source address and starts a POST /login whose body
// of 100,000 bytes never arrives beyond its first byte. It returns the connection and a channel
// with the status line the server answers, if it ever does.
func slowBody(t *testing.T, server, source string) (net.Conn, <-chan string) {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(source)}, Timeout: 10 * time.Second}
	conn, err := d.Dial("tcp", strings.TrimPrefix(server, "http://"))
	if err != nil {
		t.Fatalf("dial from %s: %v", source, err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST /login HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\ne")
	answer := make(chan string, 1)
	go func() {
		line, err := bufio.NewReader(conn).ReadString('\n')
		if err == nil {
			answer <- strings.TrimSpace(line)
		}
		close(answer)
	}()
	return conn, answer
}

// clientFrom is an HTTP client whose connections come from a loopback source address.
func clientFrom(source string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(source)}, Timeout: 10 * time.Second}
	return &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{DialContext: d.DialContext}}
}

// Clients that send their bodies a byte at a time held every place of the request cap, and the
// status page and sign-in answered 503 for everyone. Now one address has only so many requests in
// flight, and a slow body waits without a place until its time is up (408).
func TestSlowClientsCannotStarveTheStatusPage(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the real server and holds slow connections for ten seconds")
	}
	bin := buildBinary(t)
	db := filepath.Join(t.TempDir(), "slow.db")
	srv := startServer(t, bin, db, "--max-in-flight", "8", "--max-in-flight-per-address", "4")

	// Five addresses each open one request more than their cap: twenty slow bodies in all, far
	// over the eight places. Each address's fifth is turned away at once (429), which shows the
	// other four are in flight.
	var held []<-chan string
	refused := 0
	for a := 10; a < 15; a++ {
		var answers []<-chan string
		for n := 0; n < 5; n++ {
			_, answer := slowBody(t, srv.URL, fmt.Sprintf("127.0.0.%d", a))
			answers = append(answers, answer)
		}
		// Exactly one of the five is answered before the body deadline: the one over the cap.
		got := ""
		for got == "" {
			for n, answer := range answers {
				select {
				case line := <-answer:
					if !strings.Contains(line, " 429 ") {
						t.Fatalf("address 127.0.0.%d request %d: %q, want 429", a, n, line)
					}
					got = line
					answers = append(answers[:n], answers[n+1:]...)
				default:
					continue
				}
				break
			}
			if got == "" {
				time.Sleep(5 * time.Millisecond) // polling five channels for the first answer
			}
		}
		refused++
		held = append(held, answers...)
	}
	if refused != 5 || len(held) != 20 {
		t.Fatalf("%d refused and %d held, want 5 and 20", refused, len(held))
	}

	// Everyone else is served while the twenty wait.
	visitor := clientFrom("127.0.0.2")
	for _, path := range []string{"/status", "/login", "/status/api/v2/summary.json", "/status/feed.atom"} {
		resp, err := visitor.Get(srv.URL + path)
		if err != nil {
			t.Fatalf("GET %s while slow clients wait: %v", path, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s while slow clients wait: %d, want 200", path, resp.StatusCode)
		}
	}

	// And the slow bodies are cut off when their time is up.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, answer := range held {
		select {
		case line := <-answer:
			if !strings.Contains(line, " 408 ") {
				t.Errorf("a slow body was answered %q, want 408", line)
			}
		case <-ctx.Done():
			t.Fatal("a slow body was still held a minute later")
		}
	}
}
