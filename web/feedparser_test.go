package web_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// FeedparserEnv names the node_modules folder holding npm's feedparser when it is not where
// .ci/run installs it.
const FeedparserEnv = "HINDSIGHT_FEEDPARSER_MODULES"

// feedparserScript reads a feed on standard input with feedparser, a feed parser written by
// others, and prints what it understood as JSON; a feed it cannot read exits non-zero.
const feedparserScript = `
const FeedParser = require('feedparser');
const parser = new FeedParser({ feedurl: process.argv[1] });
const out = { items: [] };
parser.on('error', (err) => { console.error(String(err)); process.exit(2); });
parser.on('meta', (meta) => {
  out.meta = { title: meta.title, id: meta['atom:id'] && meta['atom:id']['#'], link: meta.link, xmlurl: meta.xmlurl, author: meta.author };
});
parser.on('readable', function () {
  let item;
  while ((item = this.read())) {
    out.items.push({ guid: item.guid, link: item.link, title: item.title, description: item.description, author: item.author });
  }
});
parser.on('end', () => { process.stdout.write(JSON.stringify(out)); });
process.stdin.pipe(parser);
`

type parsedFeed struct {
	Meta struct {
		Title, ID, Link, XMLURL, Author string
	}
	Items []struct {
		GUID, Link, Title, Description, Author string
	}
}

// feedparserRead runs feedparser over a feed. It skips when node is absent; node without
// feedparser is a skip, or under CI (HINDSIGHT_REQUIRE_BROWSER, which asks for every real
// third-party program) a failure that says how to install it.
func feedparserRead(t *testing.T, feedURL, body string) parsedFeed {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed; the feeds are not checked with feedparser")
	}
	modules := os.Getenv(FeedparserEnv)
	if modules == "" {
		modules, _ = filepath.Abs(filepath.Join("..", ".ci", "feedparser", "node_modules"))
	}
	if _, err := os.Stat(filepath.Join(modules, "feedparser")); errors.Is(err, fs.ErrNotExist) {
		if os.Getenv(RequireBrowserEnv) == "" {
			t.Skipf("feedparser is not installed in %s; .ci/run installs it (npm install --no-save --prefix .ci/feedparser feedparser@2.6.0)", modules)
		}
		t.Fatalf("feedparser not found in %s (npm install --no-save --prefix .ci/feedparser feedparser@2.6.0, or set %s)", modules, FeedparserEnv)
	}
	cmd := exec.Command(node, "-e", feedparserScript, feedURL)
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	cmd.Stdin = strings.NewReader(body)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("feedparser cannot read %s: %v %s\n%.1500s", feedURL, err, stderr.String(), body)
	}
	var feed parsedFeed
	if err := json.Unmarshal(out, &feed); err != nil {
		t.Fatalf("feedparser's output %q: %v", out, err)
	}
	return feed
}

// TestFeedparserReadsTheFeeds has npm's feedparser read the status feed and a follow-up feed,
// served to a forged Host: it must find the feed's id, self link and author on the base URL,
// and each entry's id and link there too, with the user's markup kept as text.
func TestFeedparserReadsTheFeeds(t *testing.T) {
	admin := newApp(t)
	check(t, "save the base URL", admin.post("/admin/settings", url.Values{"name": {"Example status"}, "time_zone": {"UTC"}, "base_url": {baseURL}}), http.StatusSeeOther, nil, nil)
	path := admin.createIncident(with(seed000Form(), "public", "true", "status", "investigating", "mitigated_at", "", "resolved_at", ""))
	payload := `<img src=x onerror=alert(1)> & <b>`
	admin.post(path+"/events", url.Values{"at": {"2026-03-12T17:00"}, "time_zone": {"UTC"}, "kind": {"status_update"}, "status": {"identified"}, "body": {"Cause " + payload}, "public": {"true"}})
	admin.post(path+"/follow-ups", url.Values{"title": {"Warm caches " + payload}, "kind": {"prevent"}, "priority": {"p1"}, "status": {"open"}, "owner": {"alice@example.com"}})

	for _, f := range []struct {
		name, path, id string
		reader         *app
	}{
		{"status feed", "/status/feed.atom", baseURL + "/status", admin.anonymous()},
		{"follow-up feed", "/follow-ups/feed.atom", baseURL + "/follow-ups", admin},
	} {
		feed := feedparserRead(t, baseURL+f.path, f.reader.forged(f.path).body)
		if feed.Meta.ID != f.id || feed.Meta.XMLURL != baseURL+f.path || feed.Meta.Author == "" || !strings.HasPrefix(feed.Meta.Link, baseURL+"/") {
			t.Errorf("%s: feedparser reads %+v", f.name, feed.Meta)
		}
		if len(feed.Items) != 1 {
			t.Fatalf("%s: %d items", f.name, len(feed.Items))
		}
		item := feed.Items[0]
		if !strings.HasPrefix(item.GUID, baseURL+"/") || !strings.HasPrefix(item.Link, baseURL+"/") {
			t.Errorf("%s: item id %q, link %q", f.name, item.GUID, item.Link)
		}
		text := readerText(t, f.name, &atomText{Type: "html", Body: item.Description})
		if !strings.Contains(text, payload) {
			t.Errorf("%s: a reader shows %q, want %q kept as text", f.name, text, payload)
		}
	}
}
