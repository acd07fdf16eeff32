package web_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"hindsight/models"
)

// nextCases are values of the login page's next parameter and where each must send the browser.
// Browsers strip tabs and newlines from a URL and read a backslash as a slash, so anything that
// could turn into "//host" or carry a scheme falls back to "/".
var nextCases = []struct {
	name, next, want string
}{
	{"tab before the host", "/\t/127.0.0.1:18999/", "/"},
	{"newline before the host", "/\n/evil.example/", "/"},
	{"carriage return before the host", "/\r/evil.example/", "/"},
	{"CRLF header injection", "/\r\nSet-Cookie: x=1", "/"},
	{"NUL", "/\x00/evil.example", "/"},
	{"DEL", "/\x7f/evil.example", "/"},
	{"backslash then slash", `\/evil.example`, "/"},
	{"slash then backslash", `/\evil.example`, "/"},
	{"slash then two backslashes", `/\\evil.example`, "/"},
	{"backslash inside", `/incidents\..\..\/evil.example`, "/"},
	{"protocol-relative", "//evil.example/", "/"},
	{"three slashes", "///evil.example/", "/"},
	{"encoded tab before the host", "/%09/evil.example", "/"},
	{"encoded slashes", "%2F%2Fevil.example", "/"},
	{"encoded second slash", "/%2Fevil.example", "/"},
	{"encoded backslash", "/%5Cevil.example", "/"},
	{"absolute https", "https://evil.example/", "/"},
	{"scheme with one slash", "http:/evil.example", "/"},
	{"javascript", "javascript:alert(1)", "/"},
	{"javascript after a slash", "/javascript:alert(1)", "/javascript:alert(1)"},
	{"space", "/ /evil.example", "/"},
	{"leading space", " /incidents", "/"},
	{"trailing space", "/incidents ", "/"},
	{"no-break space", "/\u00a0/evil.example", "/"},
	{"ideographic space", "/\u3000/evil.example", "/"},
	{"line separator", "/\u2028/evil.example", "/"},
	{"zero-width space", "/\u200b/evil.example", "/"},
	{"invalid UTF-8", "/\xff/evil.example", "/"},
	{"relative path", "incidents/3", "/"},
	{"empty", "", "/"},
	{"user info", "/@evil.example", "/@evil.example"},
	{"incident tab", "/incidents/3?tab=x", "/incidents/3?tab=x"},
	{"root", "/", "/"},
	{"query with an encoded space", "/incidents?q=cold%20cache", "/incidents?q=cold%20cache"},
	{"encoded slashes in the query", "/search?q=%2F%2Fx", "/search?q=%2F%2Fx"},
	{"fragment", "/follow-ups?owner=ana%40example.com#list", "/follow-ups?owner=ana%40example.com#list"},
}

// TestLoginNextStaysOnSite sends each tricky next value to the sign-in page of a signed-in user,
// which redirects at once, and checks where it points.
func TestLoginNextStaysOnSite(t *testing.T) {
	a := newApp(t)
	for _, tc := range nextCases {
		r := a.get("/login?next=" + url.QueryEscape(tc.next))
		if r.status != http.StatusSeeOther || r.header.Get("Location") != tc.want {
			t.Errorf("%s: GET /login?next=%q: status %d to %q, want %q", tc.name, tc.next, r.status, r.header.Get("Location"), tc.want)
		}
	}
}

// TestLoginPostNextStaysOnSite checks the same rule where the sign-in form posts next.
func TestLoginPostNextStaysOnSite(t *testing.T) {
	a := newServer(t)
	if _, err := a.store.CreateUser(context.Background(), models.UserInput{Email: "next@example.com", Role: models.RoleViewer, Password: testPassword}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ next, want string }{
		{"/\t/127.0.0.1:18999/", "/"},
		{"//evil.example/", "/"},
		{`/\evil.example`, "/"},
		{"https://evil.example/", "/"},
		{"/incidents/3?tab=x", "/incidents/3?tab=x"},
	} {
		c := a.anonymous()
		c.get("/login?next=" + url.QueryEscape(tc.next))
		r := c.post("/login", url.Values{"email": {"next@example.com"}, "password": {testPassword}, "next": {tc.next}})
		if r.status != http.StatusSeeOther || r.header.Get("Location") != tc.want {
			t.Errorf("POST /login next=%q: status %d to %q, want %q", tc.next, r.status, r.header.Get("Location"), tc.want)
		}
	}
}

// TestLoginPageKeepsOnlySafeNext checks that the form never carries an unsafe next value on.
func TestLoginPageKeepsOnlySafeNext(t *testing.T) {
	a := newServer(t)
	a.as(models.RoleViewer) // with no account at all, /login says how to create the first one
	check(t, "unsafe next dropped", a.get("/login?next="+url.QueryEscape("/\t/evil.example/")), http.StatusOK,
		[]string{`name="next" value="/"`}, []string{"evil.example"})
	check(t, "safe next kept", a.get("/login?next="+url.QueryEscape("/incidents/3?tab=x")), http.StatusOK,
		[]string{`name="next" value="/incidents/3?tab=x"`}, nil)
}
