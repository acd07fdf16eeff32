package models

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrForbiddenAddress is a webhook URL that resolved to a loopback, private, link-local or
// otherwise internal address while those are not allowed.
var ErrForbiddenAddress = errors.New("the address is loopback, private or link-local, which webhooks may not reach without --webhooks-allow-private")

// carrierNAT is 100.64.0.0/10, shared address space that is not on the public internet either.
var carrierNAT = &net.IPNet{IP: net.IPv4(100, 64, 0, 0), Mask: net.CIDRMask(10, 32)}

// ForbiddenWebhookIP tells whether webhooks may not reach ip without an admin allowing it.
func ForbiddenWebhookIP(ip net.IP) bool {
	if v4 := ip.To4(); v4 != nil {
		ip = v4
	}
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() || carrierNAT.Contains(ip) ||
		(len(ip) == net.IPv4len && ip[0] == 0) // 0.0.0.0/8 reaches this host on Linux
}

// WebhookClient is the HTTP client deliveries go out with. It follows no redirects (a 3xx is a
// failed attempt), times out, ignores proxy settings, and unless allowPrivate it checks the
// address every connection is about to reach, after name resolution, so a name that resolves
// to an internal address (or starts to, between the check and the request) is refused.
func WebhookClient(allowPrivate bool) *http.Client {
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		dialer.Control = func(network, address string, _ syscall.RawConn) error {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				return fmt.Errorf("dial %s: %w", address, err)
			}
			ip := net.ParseIP(host)
			if ip == nil || ForbiddenWebhookIP(ip) {
				return fmt.Errorf("dial %s: %w", address, ErrForbiddenAddress)
			}
			return nil
		}
	}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   5 * time.Second,
		ResponseHeaderTimeout: 10 * time.Second,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       60 * time.Second,
	}
	return &http.Client{
		Transport: transport,
		Timeout:   15 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// SignWebhook returns the webhook-signature header of a Standard Webhooks message: "v1," and
// the base64 HMAC-SHA256, keyed with the secret's base64-decoded bytes after "whsec_", of
// "id.timestamp.body".
func SignWebhook(secret, id string, timestamp time.Time, body []byte) (string, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return "", fmt.Errorf("webhook secret is not base64: %w", err)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + strconv.FormatInt(timestamp.Unix(), 10) + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}
