package web_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	"golang.org/x/net/html"
)

// thirdPartyRender renders Markdown as a renderer that trusts its input does: goldmark with raw
// HTML allowed, as GitHub-flavoured Markdown tools and wikis commonly run.
func thirdPartyRender(t *testing.T, md string) string {
	t.Helper()
	var out bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(gmhtml.WithUnsafe())).Convert([]byte(md), &out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// renderedElements lists the live elements of rendered HTML that could run or load (script,
// img, iframe, svg, elements with an event handler) and the level of every heading, in order.
func renderedElements(rendered string) (live []string, headings []string) {
	z := html.NewTokenizer(strings.NewReader(rendered))
	var heading string
	for {
		switch z.Next() {
		case html.ErrorToken:
			return live, headings
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			switch tok.Data {
			case "script", "img", "iframe", "svg", "object", "style":
				live = append(live, tok.String())
			case "h1", "h2", "h3", "h4", "h5", "h6":
				heading = tok.Data + " "
			}
			for _, a := range tok.Attr {
				if strings.HasPrefix(strings.ToLower(a.Key), "on") || strings.HasPrefix(strings.ToLower(strings.TrimSpace(a.Val)), "javascript:") {
					live = append(live, tok.String())
				}
			}
		case html.TextToken:
			if heading != "" {
				heading += string(z.Text())
			}
		case html.EndTagToken:
			if heading != "" {
				headings = append(headings, heading)
				heading = ""
			}
		}
	}
}

// TestMarkdownExportsCarryNoLiveHTML files an incident whose every Markdown field holds HTML and
// a top-level heading, and renders its Markdown export and its Statuspage postmortem body the
// way a third-party renderer would: no element may come alive, and the user's heading must sit
// below the section that holds it.
func TestMarkdownExportsCarryNoLiveHTML(t *testing.T) {
	admin := newApp(t)
	payload := func(field string) string {
		return "# Top heading in " + field + "\n\nText <script>alert(1)</script> and <img src=x onerror=alert(2)>.\n\n<img src=x onerror=alert(3)>\n\n<script>\nalert(4)\n</script>\n\n[link](javascript:alert(5))"
	}
	form := with(seed000Form(), "public", "true", "summary", "Summary <img src=x onerror=alert(6)>")
	for _, f := range []string{"customer_impact", "root_cause", "trigger", "detection", "response", "lessons"} {
		form.Set(f, payload(f))
	}
	path := admin.createIncident(form)
	admin.post(path+"/events", url.Values{"at": {"2026-03-12T16:39"}, "time_zone": {"UTC"}, "kind": {"status_update"}, "status": {"identified"}, "body": {"Update\n\n<script>alert(7)</script>"}, "public": {"true"}})
	admin.post(path+"/follow-ups", url.Values{"title": {"Warm <b>caches</b>"}, "kind": {"detect"}, "priority": {"p1"}, "status": {"open"}, "description": {"Do it\n\n<img src=x onerror=alert(8)>"}})
	admin.post(path+"/windows", url.Values{"started_at": {"2026-03-11T08:00"}, "time_zone": {"UTC"}, "level": {"degraded"}, "note": {"<img src=x onerror=alert(9)>"}})
	check(t, "review", admin.setState(path, "in_review"), http.StatusSeeOther, nil, nil)
	check(t, "publish", admin.setState(path, "published"), http.StatusSeeOther, nil, nil)

	export := admin.get(path + "/export.md")
	if export.status != http.StatusOK {
		t.Fatalf("export.md: %d", export.status)
	}
	var statuspage struct {
		PostmortemBody string `json:"postmortem_body"`
	}
	sp := admin.get(path + "/export.statuspage.json")
	if err := json.Unmarshal([]byte(sp.body), &statuspage); err != nil || statuspage.PostmortemBody == "" {
		t.Fatalf("statuspage export: %v, %.300s", err, sp.body)
	}
	for name, md := range map[string]string{"export.md": export.body, "statuspage postmortem_body": statuspage.PostmortemBody} {
		live, headings := renderedElements(thirdPartyRender(t, md))
		if len(live) > 0 {
			t.Errorf("%s renders live elements %q from:\n%s", name, live, md)
		}
		sectionLevel := ""
		for _, h := range headings {
			level, text, _ := strings.Cut(h, " ")
			switch {
			case text == "Root Cause":
				sectionLevel = level
			case strings.HasPrefix(text, "Top heading in root_cause"):
				if sectionLevel == "" || level <= sectionLevel {
					t.Errorf("%s: the user's heading is %s under a %s section; headings %q", name, level, sectionLevel, headings)
				}
			}
		}
		if sectionLevel == "" {
			t.Errorf("%s: no Root Cause section among %q", name, headings)
		}
		for _, text := range []string{"Text &lt;script&gt;alert(1)&lt;/script&gt;", "&lt;img src=x onerror=alert(3)&gt;"} {
			if !strings.Contains(thirdPartyRender(t, md), text) {
				t.Errorf("%s: the HTML the user typed is not kept as text %q", name, text)
			}
		}
	}
}
