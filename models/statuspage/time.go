package statuspage

import (
	"fmt"
	"time"
)

// TimeLayout is how Statuspage writes an instant: UTC, exactly three fractional digits, Z
// (2023-10-06T01:12:26.084Z). Clients parse it with that pattern, so 0 or 9 digits break them.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// Time is an instant written as Statuspage writes it.
type Time struct{ time.Time }

// At wraps an instant; AtPtr wraps one that may be unknown.
func At(t time.Time) Time { return Time{t.UTC()} }

// AtPtr is At for an instant that may be nil.
func AtPtr(t *time.Time) *Time {
	if t == nil {
		return nil
	}
	at := At(*t)
	return &at
}

// MarshalJSON writes the instant in TimeLayout, truncated (never rounded) to the millisecond.
func (t Time) MarshalJSON() ([]byte, error) {
	return []byte(`"` + t.UTC().Format(TimeLayout) + `"`), nil
}

// UnmarshalJSON reads any RFC 3339 instant.
func (t *Time) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return fmt.Errorf("statuspage time: want a string, got %s", b)
	}
	at, err := time.Parse(time.RFC3339Nano, string(b[1:len(b)-1]))
	if err != nil {
		return fmt.Errorf("statuspage time: %w", err)
	}
	t.Time = at.UTC()
	return nil
}
