package models_test

import (
	"testing"

	"hindsight/models"
)

// TestImageLinks: only addresses where a Markdown image or link starts are pointed elsewhere,
// both spellings of a link included; an address written as text is left alone, and a prefix is
// written as given, even one holding what a regular expression would read as a group.
func TestImageLinks(t *testing.T) {
	for _, c := range []struct{ in, prefix, want string }{
		{"![p99](/images/12) and [it]( </images/3>)", "https://s.example/status", "![p99](https://s.example/status/images/12) and [it]( <https://s.example/status/images/3>)"},
		{"see /images/12 in the text", "https://s.example", "see /images/12 in the text"},
		{"![a](/images/1)", "/status", "![a](/status/images/1)"},
		{"![a](/images/1)", "https://s.example/$1", "![a](https://s.example/$1/images/1)"},
		{"![a](https://elsewhere.example/images/1)", "/status", "![a](https://elsewhere.example/images/1)"},
	} {
		if got := models.ImageLinks(c.in, c.prefix); got != c.want {
			t.Errorf("ImageLinks(%q, %q) = %q, want %q", c.in, c.prefix, got, c.want)
		}
	}
}
