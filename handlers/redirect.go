package handlers

import (
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// localPath returns target when it can only be a path on this server, and fallback otherwise.
// Every redirect to a URL that came with the request (a sign-in's next, a form's return) goes
// through it.
//
// Nothing is stripped or repaired: browsers remove tabs and newlines from a URL and read a
// backslash as a slash, so "/\t/evil.example" or "/\evil.example" would become "//evil.example",
// another site. Any control character, any whitespace, any backslash, a second leading slash, or
// a scheme or host once parsed, makes the whole value unusable.
func localPath(target, fallback string) string {
	if !isLocalPath(target) {
		return fallback
	}
	return target
}

func isLocalPath(target string) bool {
	if !strings.HasPrefix(target, "/") || strings.HasPrefix(target, "//") || !plainText(target) {
		return false
	}
	u, err := url.Parse(target)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
		return false
	}
	// The decoded path is held to the same rule, so that no later decoding step (a proxy, a
	// framework's redirect) can turn "/%2F" or "/%09/" into a host.
	return strings.HasPrefix(u.Path, "/") && !strings.HasPrefix(u.Path, "//") && plainText(u.Path)
}

// plainText reports whether s is valid UTF-8 without control characters, whitespace, invisible
// format characters or backslashes.
func plainText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r == '\\' || unicode.IsControl(r) || unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) {
			return false
		}
	}
	return true
}
