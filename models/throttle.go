package models

import (
	"context"
	"fmt"
	"time"
)

// Login throttling: after LoginFailureLimit failures within LoginFailureWindow, for one account or
// from one address, further attempts are refused until the oldest failure leaves the window. The
// failures live in the database so that every server process sees the same count.
const (
	LoginFailureLimit  = 10
	LoginFailureWindow = 15 * time.Minute
)

type loginFailure struct {
	ID    int64
	Email string
	IP    string
	At    time.Time
}

func (loginFailure) TableName() string { return "login_failures" }

// RecordLoginFailure notes a failed sign-in.
func (s *Store) RecordLoginFailure(ctx context.Context, email, ip string) error {
	row := loginFailure{Email: NormalizeEmail(email), IP: ip, At: time.Now().UTC()}
	if err := s.write.WithContext(ctx).Create(&row).Error; err != nil {
		return fmt.Errorf("record login failure: %w", err)
	}
	return nil
}

// LoginBlockedFor says how long sign-ins for this email or from this address must wait; zero
// means they may go ahead.
func (s *Store) LoginBlockedFor(ctx context.Context, email, ip string) (time.Duration, error) {
	now := time.Now().UTC()
	since := now.Add(-LoginFailureWindow)
	var wait time.Duration
	for _, where := range []struct{ column, value string }{{"email", NormalizeEmail(email)}, {"ip", ip}} {
		var times []time.Time
		err := s.read.WithContext(ctx).Model(&loginFailure{}).Where(where.column+" = ? AND at > ?", where.value, since).
			Order("at DESC").Limit(LoginFailureLimit).Pluck("at", &times).Error
		if err != nil {
			return 0, fmt.Errorf("count login failures: %w", err)
		}
		if len(times) >= LoginFailureLimit {
			// The oldest of the last LoginFailureLimit failures decides when one slot frees up.
			if w := times[len(times)-1].Add(LoginFailureWindow).Sub(now); w > wait {
				wait = w
			}
		}
	}
	return wait, nil
}
