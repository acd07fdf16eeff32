package handlers

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzLocalPath checks that whatever localPath accepts stays on this server even as a browser
// reads it: with tabs and newlines removed, backslashes taken for slashes, and percent-escapes
// decoded once more.
func FuzzLocalPath(f *testing.F) {
	for _, seed := range []string{"/incidents/3?tab=x", "/\t/evil.example", `/\evil`, "//evil", "/%2F/evil", "/%09/evil", "https://evil", "/a/b#c", "/.//evil", "/@evil"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, target string) {
		got := localPath(target, "/")
		if got != target && got != "/" {
			t.Fatalf("localPath(%q) = %q: neither the target nor the fallback", target, got)
		}
		browser := strings.NewReplacer("\t", "", "\n", "", "\r", "", `\`, "/").Replace(got)
		for _, read := range []string{browser, decoded(browser)} {
			// A value that does not parse once decoded is no link to anywhere; only a host or a
			// scheme would be.
			u, err := url.Parse(read)
			if strings.HasPrefix(read, "//") || err == nil && (u.Scheme != "" || u.Host != "") {
				t.Fatalf("localPath(%q) = %q, which a browser may read as %q: off this server", target, got, read)
			}
		}
	})
}

func decoded(s string) string {
	if d, err := url.PathUnescape(s); err == nil {
		return d
	}
	return s
}
