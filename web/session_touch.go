package web

import (
	"reflect"

	"github.com/alexedwards/scs/v2"
	"github.com/labstack/echo/v4"

	"hindsight/handlers"
	"hindsight/models"
)

// sessionStore keeps sessions in the database and lets it skip the write scs makes on every
// request only to push an idle session's expiry forward (models.SessionTouchInterval): without
// that, every page view would be a write through SQLite's single writer connection, and every
// write empties the page cache of every reader connection.
func sessionStore(store *models.Store, codec scs.Codec) *models.SessionStore {
	st := store.Sessions()
	st.SameData = func(a, b []byte) bool {
		deadlineA, valuesA, errA := codec.Decode(a)
		deadlineB, valuesB, errB := codec.Decode(b)
		return errA == nil && errB == nil && deadlineA.Equal(deadlineB) && reflect.DeepEqual(valuesA, valuesB)
	}
	st.UserOf = func(data []byte) int64 {
		_, values, err := codec.Decode(data)
		if err != nil {
			return 0
		}
		id, _ := values[handlers.SessionUserKey].(int64)
		return id
	}
	return st
}

// sessionMemo gives each request a place where the session store notes the row it read, so it
// can tell a touch from a change when scs commits.
func sessionMemo(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		c.SetRequest(req.WithContext(models.WithSessionMemo(req.Context())))
		return next(c)
	}
}
