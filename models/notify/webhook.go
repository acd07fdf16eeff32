package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// ErrForbiddenAddress is returned when a webhook's host resolves to an address Hindsight does not
// call: loopback, private, link-local, shared or otherwise not on the public internet.
var ErrForbiddenAddress = errors.New("webhook address is not a public one")

// sharedAddressSpace is carrier-grade NAT (RFC 6598), private in all but name.
var sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10")

// publicAddress tells whether a webhook may be sent to ip.
func publicAddress(ip netip.Addr) bool {
	ip = ip.Unmap()
	return ip.IsValid() && !ip.IsLoopback() && !ip.IsPrivate() && !ip.IsLinkLocalUnicast() && !ip.IsLinkLocalMulticast() &&
		!ip.IsInterfaceLocalMulticast() && !ip.IsMulticast() && !ip.IsUnspecified() && !sharedAddressSpace.Contains(ip)
}

// Webhooks posts subscribers' payloads. The address a host resolves to is checked when the
// connection is made, not when the URL was given, so a name that later resolves to an inside
// address is refused too; redirects are not followed and no proxy is used.
type Webhooks struct {
	client *http.Client
}

// NewWebhooks makes the sender; allowPrivate lets it call loopback and private addresses (tests,
// or subscribers inside the operator's own network).
func NewWebhooks(timeout time.Duration, allowPrivate bool) *Webhooks {
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	dialer := &net.Dialer{Timeout: timeout, Control: func(network, address string, _ syscall.RawConn) error {
		if allowPrivate {
			return nil
		}
		ap, err := netip.ParseAddrPort(address)
		if err != nil || !publicAddress(ap.Addr()) {
			return fmt.Errorf("%s: %w", address, ErrForbiddenAddress)
		}
		return nil
	}}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
		MaxIdleConns:          10,
		IdleConnTimeout:       30 * time.Second,
	}
	return &Webhooks{client: &http.Client{
		Transport: transport,
		Timeout:   timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse // a 3xx is a failure, as Statuspage treats it
		},
	}}
}

// Post sends one payload; anything but a 2xx answer is an error. A 4xx other than 408 and 429
// is not worth retrying for long, but a subscriber's server may be misconfigured for a while, so
// every failure is retried with backoff.
func (w *Webhooks) Post(ctx context.Context, url string, payload []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return permanentIf(true, fmt.Errorf("webhook request: %w", err))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Hindsight status page webhooks")
	resp, err := w.client.Do(req)
	if err != nil {
		return permanentIf(errors.Is(err, ErrForbiddenAddress), fmt.Errorf("webhook: %w", err))
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("webhook answered %s", resp.Status)
	}
	return nil
}
