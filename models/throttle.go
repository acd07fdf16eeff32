package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Login throttling. Failures are counted within LoginFailureWindow, three ways:
//
//   - per account and address: LoginFailureLimit failures for one account from one address stop
//     that address trying that account;
//   - per address: LoginAddressFailureLimit failures from one address, whatever the accounts,
//     stop that address trying any;
//   - per account: past LoginAccountFailureLimit failures for one account from all addresses
//     together, each address that has failed for it at all is stopped trying it.
//
// No count is per account alone, so nobody can lock an owner out by failing from elsewhere: an
// address with no failures of its own always gets to try. Each refusal lasts until enough
// failures leave the window. The failures live in the database so that every server process
// sees the same counts.
const (
	LoginFailureLimit        = 10
	LoginAddressFailureLimit = 30
	LoginAccountFailureLimit = 100
	LoginFailureWindow       = 15 * time.Minute
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

// LoginBlockedFor says how long sign-ins for this email from this address must wait; zero means
// they may go ahead.
func (s *Store) LoginBlockedFor(ctx context.Context, email, ip string) (time.Duration, error) {
	now := time.Now().UTC()
	email = NormalizeEmail(email)
	address, err := s.recentFailures(ctx, now, "ip = ?", LoginAddressFailureLimit, ip)
	if err != nil {
		return 0, err
	}
	wait := freedAfter(now, address, LoginAddressFailureLimit)
	pair, err := s.recentFailures(ctx, now, "email = ? AND ip = ?", LoginFailureLimit, email, ip)
	if err != nil || len(pair) == 0 {
		// An address without failures for this account is never stopped on the account's behalf.
		return wait, err
	}
	wait = max(wait, freedAfter(now, pair, LoginFailureLimit))
	account, err := s.recentFailures(ctx, now, "email = ?", LoginAccountFailureLimit, email)
	if err != nil {
		return 0, err
	}
	if w := freedAfter(now, account, LoginAccountFailureLimit); w > 0 {
		// Under a wide attack this address may try again once the account's count drops below the
		// limit, or once its own last failure for the account leaves the window.
		wait = max(wait, min(w, pair[0].Add(LoginFailureWindow).Sub(now)))
	}
	return wait, nil
}

// recentFailures returns the times of the newest failures matching where, at most limit of them,
// newest first.
func (s *Store) recentFailures(ctx context.Context, now time.Time, where string, limit int, args ...any) ([]time.Time, error) {
	var times []time.Time
	err := s.read.WithContext(ctx).Model(&loginFailure{}).Where(where+" AND at > ?", append(args, now.Add(-LoginFailureWindow))...).
		Order("at DESC").Limit(limit).Pluck("at", &times).Error
	if err != nil {
		return nil, fmt.Errorf("count login failures: %w", err)
	}
	return times, nil
}

// freedAfter says how long until fewer than limit of these failures, newest first, are within the
// window: the oldest of the last limit failures decides when a slot frees up.
func freedAfter(now time.Time, times []time.Time, limit int) time.Duration {
	if len(times) < limit {
		return 0
	}
	return max(0, times[limit-1].Add(LoginFailureWindow).Sub(now))
}

// Subscribe-form limits. An address gets at most SubscribeAddressLimit confirmation mails within
// SubscribeWindow, whoever asks, so the form cannot flood an inbox; one client address may ask
// SubscribeIPLimit times within it.
const (
	SubscribeAddressLimit = 3
	SubscribeIPLimit      = 20
	SubscribeWindow       = time.Hour
)

// ErrSubscribeThrottled is returned when a client address has asked to subscribe too often.
var ErrSubscribeThrottled = errors.New("too many subscribe requests")

type subscribeAttempt struct {
	ID      int64
	Address string
	IP      string
	At      time.Time
}

func (subscribeAttempt) TableName() string { return "subscribe_attempts" }

// subscribeThrottle counts a subscribe request within the request's transaction: past
// SubscribeIPLimit from one client address it is ErrSubscribeThrottled; past
// SubscribeAddressLimit for one address, mail is false and no more mail goes to it for now,
// which the caller keeps to itself so that the form never tells what became of an address.
func subscribeThrottle(tx *gorm.DB, address, ip string, now time.Time) (mail bool, err error) {
	var byIP, byAddress int64
	since := now.Add(-SubscribeWindow)
	if err := tx.Model(&subscribeAttempt{}).Where("ip = ? AND at > ?", ip, since).Count(&byIP).Error; err != nil {
		return false, fmt.Errorf("count subscribe requests: %w", err)
	}
	if byIP >= SubscribeIPLimit {
		return false, ErrSubscribeThrottled
	}
	if err := tx.Model(&subscribeAttempt{}).Where("address = ? AND at > ?", address, since).Count(&byAddress).Error; err != nil {
		return false, fmt.Errorf("count subscribe requests: %w", err)
	}
	if err := tx.Create(&subscribeAttempt{Address: address, IP: ip, At: now}).Error; err != nil {
		return false, fmt.Errorf("record subscribe request: %w", err)
	}
	return byAddress < SubscribeAddressLimit, nil
}
