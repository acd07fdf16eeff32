package models_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"hindsight/models"
	"hindsight/models/storetest"
)

// TestLoginThrottleRules checks each count on both databases: per account and address, per
// address, and the wide-attack rule that stops only addresses that have failed for the account.
func TestLoginThrottleRules(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		blocked := func(name, email, ip string, want bool) {
			t.Helper()
			wait, err := s.LoginBlockedFor(ctx, email, ip)
			if err != nil {
				t.Fatal(err)
			}
			if (wait > 0) != want || wait > models.LoginFailureWindow {
				t.Errorf("%s: %s from %s waits %v, want blocked %v", name, email, ip, wait, want)
			}
		}
		fail := func(email, ip string, n int) {
			t.Helper()
			for range n {
				if err := s.RecordLoginFailure(ctx, email, ip); err != nil {
					t.Fatal(err)
				}
			}
		}
		fail("a@example.com", "192.0.2.1", models.LoginFailureLimit-1)
		blocked("below the pair limit", "a@example.com", "192.0.2.1", false)
		fail("A@Example.com ", "192.0.2.1", 1)
		blocked("at the pair limit", "a@example.com", "192.0.2.1", true)
		blocked("the account from another address", "a@example.com", "192.0.2.2", false)
		blocked("another account from the address", "b@example.com", "192.0.2.1", false)

		fail("c@example.com", "192.0.2.1", models.LoginAddressFailureLimit-models.LoginFailureLimit)
		blocked("at the address limit", "b@example.com", "192.0.2.1", true)
		blocked("another address at all", "b@example.com", "192.0.2.3", false)

		for n := range models.LoginAccountFailureLimit - 1 {
			fail("wide@example.com", fmt.Sprintf("10.1.%d.%d", n/200, n%200), 1)
		}
		blocked("below the account limit", "wide@example.com", "10.1.0.0", false)
		fail("wide@example.com", "10.2.0.0", 1)
		blocked("an address that failed, at the account limit", "wide@example.com", "10.1.0.0", true)
		blocked("a fresh address, at the account limit", "wide@example.com", "10.3.0.0", false)
		blocked("the same address, another account", "x@example.com", "10.1.0.0", false)

		wait, err := s.LoginBlockedFor(ctx, "a@example.com", "192.0.2.1")
		if err != nil || wait < models.LoginFailureWindow-time.Minute {
			t.Errorf("wait after fresh failures: %v, %v; want about %v", wait, err, models.LoginFailureWindow)
		}
	})
}
