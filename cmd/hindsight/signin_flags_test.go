package main

import (
	"flag"
	"io"
	"slices"
	"testing"
)

// TestSignInFlags: the OpenID Connect and password sign-in flags reach the server's
// configuration, and settings that would lock people out or half-configure the provider are
// refused at start-up.
func TestSignInFlags(t *testing.T) {
	parse := func(args ...string) error {
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		read := signInFlags(fs)
		if err := fs.Parse(args); err != nil {
			return err
		}
		cfg, policy, err := read()
		if err == nil && len(args) > 0 && args[0] == "--oidc-issuer=https://id.example.com" {
			if cfg.ClientID != "hindsight" || !slices.Equal(cfg.AdminGroups, []string{"ops", "sre"}) || cfg.Name != "your identity provider" {
				t.Errorf("config %+v", cfg)
			}
			if policy.BreakGlassOnly && !policy.Allows("Root@Example.com") || policy.BreakGlassOnly && policy.Allows("x@example.com") {
				t.Errorf("policy %+v", policy)
			}
		}
		return err
	}
	for _, tc := range []struct {
		args []string
		ok   bool
	}{
		{nil, true},
		{[]string{"--oidc-issuer=https://id.example.com", "--oidc-client-id=hindsight", "--oidc-admin-groups= ops, sre,"}, true},
		{[]string{"--oidc-issuer=https://id.example.com", "--oidc-client-id=hindsight", "--oidc-admin-groups=ops,sre", "--password-signin=break-glass", "--break-glass-emails=root@example.com"}, true},
		{[]string{"--oidc-issuer=https://id.example.com"}, false},
		{[]string{"--password-signin=none"}, false},
		{[]string{"--password-signin=break-glass", "--break-glass-emails=root@example.com"}, false},
		{[]string{"--oidc-issuer=https://id.example.com", "--oidc-client-id=hindsight", "--password-signin=break-glass"}, false},
	} {
		if err := parse(tc.args...); (err == nil) != tc.ok {
			t.Errorf("%v: err %v, want ok=%v", tc.args, err, tc.ok)
		}
	}
}
