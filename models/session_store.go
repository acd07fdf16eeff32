package models

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"gorm.io/gorm/clause"
)

// sessionRow is one server-side session, as scs stores it.
type sessionRow struct {
	Token  string `gorm:"primaryKey"`
	Data   []byte
	Expiry time.Time
	// UserID is the account the session is signed in as (SessionStore.UserOf), nil when none,
	// so the request reads the session and its account in one statement.
	UserID *int64
}

func (sessionRow) TableName() string { return "sessions" }

// SessionStore keeps web sessions in the project's database, so they survive restarts, can be
// revoked, and work across several server processes. It implements scs.CtxStore.
type SessionStore struct {
	s *Store
	// SameData tells whether two encodings hold the same session; the session manager's codec
	// knows (gob writes a map's keys in random order, so equal sessions may differ byte for byte).
	// Without it, only identical bytes count as the same.
	SameData func(a, b []byte) bool
	// UserOf reads the signed-in account's id from a session's encoding, 0 when none; the
	// session manager's codec knows. Without it, every request reads its account apart.
	UserOf func(data []byte) int64
}

// Sessions returns the store's session storage.
func (s *Store) Sessions() *SessionStore { return &SessionStore{s: s} }

// SessionTouchInterval is how far a session's idle expiry may move before it is written again. With
// an idle timeout, scs saves the session on every request only to push its expiry forward; doing
// that at most once a minute keeps reading a page from being a database write.
const SessionTouchInterval = time.Minute

// sessionMemo remembers, for one request, the session row as FindCtx read it, so CommitCtx can
// tell a real change from a mere touch. It lives in the request's context: nothing is shared
// between requests or server processes.
type sessionMemo struct {
	token  string
	data   []byte
	expiry time.Time
	user   *User // the session's account, read with it
}

type sessionMemoKey struct{}

// WithSessionMemo prepares a request's context so the session store can skip writes that would
// only move the idle expiry by less than SessionTouchInterval.
func WithSessionMemo(ctx context.Context) context.Context {
	return context.WithValue(ctx, sessionMemoKey{}, &sessionMemo{})
}

// FindCtx returns a live session's data. It reads the session's account in the same statement
// and keeps it in the request's memo, where SessionUser finds it.
func (st *SessionStore) FindCtx(ctx context.Context, token string) ([]byte, bool, error) {
	var rows []struct {
		Data   []byte
		Expiry time.Time
		UserID *int64
		User   User `gorm:"embedded;embeddedPrefix:u_"`
	}
	err := st.s.read.WithContext(ctx).Raw(`SELECT s.data, s.expiry, s.user_id, `+accountColumns+`
		FROM sessions s LEFT JOIN users u ON u.id = s.user_id
		WHERE s.token = ? AND s.expiry > ?`, token, time.Now().UTC()).Scan(&rows).Error
	if err != nil {
		return nil, false, fmt.Errorf("find session: %w", err)
	}
	if len(rows) == 0 {
		return nil, false, nil
	}
	row := rows[0]
	if memo, ok := ctx.Value(sessionMemoKey{}).(*sessionMemo); ok {
		memo.token, memo.data, memo.expiry, memo.user = token, row.Data, row.Expiry, nil
		if row.UserID != nil && row.User.ID == *row.UserID {
			u := row.User
			memo.user = &u
		}
	}
	return row.Data, true, nil
}

// sessionUser is the account read with the request's session, when it is the one asked for.
func sessionUser(ctx context.Context, id int64) *User {
	if memo, ok := ctx.Value(sessionMemoKey{}).(*sessionMemo); ok && memo.user != nil && memo.user.ID == id {
		u := *memo.user
		return &u
	}
	return nil
}

// CommitCtx saves a session. A commit that changes nothing but pushes the expiry forward by less
// than SessionTouchInterval is skipped when the request's context carries a memo of the row.
func (st *SessionStore) CommitCtx(ctx context.Context, token string, data []byte, expiry time.Time) error {
	if memo, ok := ctx.Value(sessionMemoKey{}).(*sessionMemo); ok && memo.token == token &&
		!expiry.Before(memo.expiry) && expiry.Sub(memo.expiry) < SessionTouchInterval && st.same(memo.data, data) {
		return nil
	}
	row := sessionRow{Token: token, Data: data, Expiry: expiry.UTC()}
	if st.UserOf != nil {
		if id := st.UserOf(data); id != 0 {
			row.UserID = &id
		}
	}
	err := st.s.write.WithContext(ctx).Clauses(clause.OnConflict{
		Columns: []clause.Column{{Name: "token"}}, DoUpdates: clause.AssignmentColumns([]string{"data", "expiry", "user_id"}),
	}).Create(&row).Error
	if err != nil {
		return fmt.Errorf("save session: %w", err)
	}
	return nil
}

func (st *SessionStore) same(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	return st.SameData != nil && st.SameData(a, b)
}

// DeleteCtx ends a session.
func (st *SessionStore) DeleteCtx(ctx context.Context, token string) error {
	if err := st.s.write.WithContext(ctx).Where("token = ?", token).Delete(&sessionRow{}).Error; err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	return nil
}

// Find, Commit and Delete satisfy scs.Store for callers without a context.
func (st *SessionStore) Find(token string) ([]byte, bool, error) {
	return st.FindCtx(context.Background(), token)
}

// Commit saves a session.
func (st *SessionStore) Commit(token string, data []byte, expiry time.Time) error {
	return st.CommitCtx(context.Background(), token, data, expiry)
}

// Delete ends a session.
func (st *SessionStore) Delete(token string) error { return st.DeleteCtx(context.Background(), token) }

// DeleteExpired removes sessions past their expiry and old login failures.
func (s *Store) DeleteExpired(ctx context.Context) error {
	now := time.Now().UTC()
	if err := s.write.WithContext(ctx).Where("expiry <= ?", now).Delete(&sessionRow{}).Error; err != nil {
		return fmt.Errorf("delete expired sessions: %w", err)
	}
	if err := s.write.WithContext(ctx).Where("at < ?", now.Add(-24*time.Hour)).Delete(&loginFailure{}).Error; err != nil {
		return fmt.Errorf("delete old login failures: %w", err)
	}
	if err := s.write.WithContext(ctx).Where("at < ?", now.Add(-24*time.Hour)).Delete(&subscribeAttempt{}).Error; err != nil {
		return fmt.Errorf("delete old subscribe requests: %w", err)
	}
	return nil
}
