package handlers

import (
	"testing"
	"time"

	"hindsight/models"
)

// TestKeptIncidentPagesExpireWithTheClock checks the page of an incident with an impact window
// still open is re-drawn within the minute, and others by the next midnight UTC, when follow-ups
// fall overdue.
func TestKeptIncidentPagesExpireWithTheClock(t *testing.T) {
	now := time.Date(2026, 3, 12, 17, 20, 30, 0, time.UTC)
	start := now.Add(-time.Hour)
	open := &models.Incident{ImpactWindows: []models.ImpactWindow{{StartedAt: start}}}
	if got, want := pageExpiry(open, now), time.Date(2026, 3, 12, 17, 21, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("open window: expires %s, want %s", got, want)
	}
	end := now.Add(-time.Minute)
	closed := &models.Incident{ImpactWindows: []models.ImpactWindow{{StartedAt: start, EndedAt: &end}}}
	if got, want := pageExpiry(closed, now), time.Date(2026, 3, 13, 0, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("closed window: expires %s, want %s", got, want)
	}
	// A window without its own end stops at mitigation when that is known.
	mitigated := &models.Incident{MitigatedAt: &end, ImpactWindows: []models.ImpactWindow{{StartedAt: start}}}
	if got, want := pageExpiry(mitigated, now), time.Date(2026, 3, 13, 0, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("window ended by mitigation: expires %s, want %s", got, want)
	}
}

// TestFragmentsKeepWithinTheirBudget fills the kept pages past their byte budget and checks the
// total stays within it, that a replaced body is not counted twice, and that an expired or
// outdated body is not served.
func TestFragmentsKeepWithinTheirBudget(t *testing.T) {
	f := NewFragments(1000)
	body := make([]byte, 100)
	for n := range 50 {
		f.put(string(rune('a'+n)), fragment{mark: "1", body: body, size: 100})
		if f.bytes > 1000 || f.bytes != 100*len(f.entries) {
			t.Fatalf("after %d puts: %d bytes counted for %d bodies, budget 1000", n+1, f.bytes, len(f.entries))
		}
	}
	f.put("again", fragment{mark: "1", body: body, size: 100})
	f.put("again", fragment{mark: "2", body: body, size: 100})
	if f.bytes != 100*len(f.entries) {
		t.Errorf("a replaced body is counted twice: %d bytes for %d bodies", f.bytes, len(f.entries))
	}
	f.put("huge", fragment{mark: "1", body: make([]byte, 200), size: 200})
	if _, ok := f.get("huge", "1", time.Now()); ok {
		t.Error("a body larger than an eighth of the budget was kept")
	}
	now := time.Now()
	if _, ok := f.get("again", "1", now); ok {
		t.Error("a body was served for a mark it was not rendered at")
	}
	if _, ok := f.get("again", "2", now); !ok {
		t.Error("a body rendered at the current mark was not served")
	}
	f.put("soon", fragment{mark: "1", body: body, size: 100, expires: now.Add(time.Minute)})
	if _, ok := f.get("soon", "1", now.Add(time.Minute)); ok {
		t.Error("an expired body was served")
	}
	var none *Fragments = NewFragments(0)
	none.put("x", fragment{mark: "1", body: body, size: 100})
	if _, ok := none.get("x", "1", now); ok {
		t.Error("a store with no budget kept a body")
	}
}
