package web_test

import (
	"net/http"
	"testing"
)

// TestOnlySignedInPagesCarryTheMarker: browser tests wait for body[data-signed-in] after signing
// in (signIn), which only works if the sign-in page and the other anonymous pages lack it.
func TestOnlySignedInPagesCarryTheMarker(t *testing.T) {
	a := newApp(t)
	anon := a.anonymous()
	for _, path := range []string{"/login", "/status"} {
		check(t, "anonymous "+path, anon.get(path), http.StatusOK, []string{"<h1"}, []string{"data-signed-in"})
	}
	check(t, "anonymous error page", anon.get("/nowhere"), http.StatusNotFound, nil, []string{"data-signed-in"})
	for _, path := range []string{"/incidents", "/account", "/incidents/new"} {
		check(t, "signed in "+path, a.get(path), http.StatusOK, []string{"<body data-signed-in"}, nil)
	}
}
