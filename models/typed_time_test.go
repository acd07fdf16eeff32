package models

import (
	"testing"
	"time"
)

func TestParseTyped(t *testing.T) {
	london, _ := time.LoadLocation("Europe/London")
	day := time.Date(2026, 3, 12, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		text  string
		loc   *time.Location
		want  time.Time
		prec  Precision
		shown string
	}{
		{"2026-03-12 16:54", time.UTC, time.Date(2026, 3, 12, 16, 54, 0, 0, time.UTC), PrecisionMinute, "12 Mar 2026 16:54 UTC"},
		{"2026-03-12T16:54", time.UTC, time.Date(2026, 3, 12, 16, 54, 0, 0, time.UTC), PrecisionMinute, "12 Mar 2026 16:54 UTC"},
		{"Mar 12, 2026 4:54 PM", time.UTC, time.Date(2026, 3, 12, 16, 54, 0, 0, time.UTC), PrecisionMinute, "12 Mar 2026 16:54 UTC"},
		{"Mar 12, 2026, 04:39 PM UTC", london, time.Date(2026, 3, 12, 16, 39, 0, 0, time.UTC), PrecisionMinute, ""},
		{"march 12 2026 4:54 pm", time.UTC, time.Date(2026, 3, 12, 16, 54, 0, 0, time.UTC), PrecisionMinute, ""},
		{"12 March 2026 16:54", time.UTC, time.Date(2026, 3, 12, 16, 54, 0, 0, time.UTC), PrecisionMinute, ""},
		{"16:54", time.UTC, time.Date(2026, 3, 12, 16, 54, 0, 0, time.UTC), PrecisionMinute, ""},
		{"4:54 PM", time.UTC, time.Date(2026, 3, 12, 16, 54, 0, 0, time.UTC), PrecisionMinute, ""},
		{"2022-04-05 08:00", london, time.Date(2022, 4, 5, 7, 0, 0, 0, time.UTC), PrecisionMinute, "5 Apr 2022 08:00 Europe/London"},
		{"1st April 2022", london, time.Date(2022, 3, 31, 23, 0, 0, 0, time.UTC), PrecisionDay, "1 Apr 2022 (the day only)"},
		{"2022-04-01", time.UTC, time.Date(2022, 4, 1, 0, 0, 0, 0, time.UTC), PrecisionDay, ""},
		{"2026-03-12T16:54:00Z", london, time.Date(2026, 3, 12, 16, 54, 0, 0, time.UTC), PrecisionMinute, ""},
		{"2026-03-12 16:54 +01:00", time.UTC, time.Date(2026, 3, 12, 15, 54, 0, 0, time.UTC), PrecisionMinute, ""},
	}
	for _, c := range cases {
		got, prec, err := ParseTyped(c.text, c.loc, &day)
		if err != nil {
			t.Errorf("%q: %v", c.text, err)
			continue
		}
		if !got.Equal(c.want) || prec != c.prec {
			t.Errorf("%q: got %v (%d), want %v (%d)", c.text, got.UTC(), prec, c.want, c.prec)
		}
		if c.shown != "" {
			if s := Understood(got, prec, c.loc); s != c.shown {
				t.Errorf("%q shown as %q, want %q", c.text, s, c.shown)
			}
		}
	}
	for _, bad := range []string{"", "soon", "16:54", "2026-13-40 10:00", "yesterday at noon"} {
		var d *time.Time
		if bad != "16:54" {
			d = &day
		}
		if _, _, err := ParseTyped(bad, time.UTC, d); err == nil {
			t.Errorf("%q read as a time", bad)
		}
	}
}
