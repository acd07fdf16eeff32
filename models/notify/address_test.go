package notify

import (
	"net/netip"
	"testing"
)

// TestPublicAddress lists the addresses a webhook may and may not be sent to.
func TestPublicAddress(t *testing.T) {
	for addr, want := range map[string]bool{
		"93.184.215.14": true, "2606:4700::1111": true, "8.8.8.8": true,
		"127.0.0.1": false, "::1": false, "10.1.2.3": false, "172.16.0.1": false, "192.168.1.1": false,
		"169.254.169.254": false, "fe80::1": false, "fc00::1": false, "100.64.0.1": false, "0.0.0.0": false,
		"::": false, "224.0.0.1": false, "::ffff:127.0.0.1": false, "::ffff:10.0.0.1": false,
	} {
		if got := publicAddress(netip.MustParseAddr(addr)); got != want {
			t.Errorf("publicAddress(%s) = %v, want %v", addr, got, want)
		}
	}
}

// TestParseSMTPURL reads the --smtp-url forms.
func TestParseSMTPURL(t *testing.T) {
	m, err := ParseSMTPURL("smtp://user:p%40ss@mail.example.com:2525")
	if err != nil || m.Addr != "mail.example.com:2525" || m.Username != "user" || m.Password != "p@ss" || m.Implicit {
		t.Errorf("smtp: %+v, %v", m, err)
	}
	m, err = ParseSMTPURL("smtps://mail.example.com")
	if err != nil || m.Addr != "mail.example.com:465" || !m.Implicit {
		t.Errorf("smtps: %+v, %v", m, err)
	}
	for _, bad := range []string{"http://mail.example.com", "smtp://", "mail.example.com:25"} {
		if _, err := ParseSMTPURL(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
