package mdexport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
)

// unsafeRender renders as a renderer that passes raw HTML and every link through.
func unsafeRender(t *testing.T, md string) string {
	t.Helper()
	var out bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe())).Convert([]byte(md), &out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func TestInertHTML(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain *text*", "plain *text*"},
		{"a <tags> & b", "a &lt;tags> & b"},
		{"<script>alert(1)</script>", "&lt;script>alert(1)&lt;/script>"},
		{"x <img src=x onerror=alert(1)> y", "x &lt;img src=x onerror=alert(1)> y"},
		{"`<script>` in code", "`<script>` in code"},
		{"    <script>indented code</script>", "    <script>indented code</script>"},
		{"[x](javascript:alert(1))", `\[x](javascript:alert(1))`},
		{"![x](JaVaScRiPt:alert(1))", `!\[x](JaVaScRiPt:alert(1))`},
		{"<javascript:alert(1)>", "&lt;javascript:alert(1)>"},
		{"[web](https://example.com) <https://example.com>", "[web](https://example.com) <https://example.com>"},
		{"[y][x]\n\n[x]: javascript:alert(1)", "\\[y]\\[x]\n\n[x]: javascript:alert(1)"},
	} {
		if got := inertHTML(tc.in); got != tc.want {
			t.Errorf("inertHTML(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestInertHTMLSettles: escaping an HTML block turns it into a paragraph, which takes in the
// indented line after it; what was a code block must not come alive as inline HTML.
func TestInertHTMLSettles(t *testing.T) {
	for _, attack := range []string{
		"<!-- x -->\n    <script>alert(1)</script>",
		"<div>\n\n    <img src=x onerror=alert(1)>",
		"<<script>script>alert(1)<</script>/script>",
		"- <details open ontoggle=alert(1)>",
		"| a |\n| - |\n| <img src=x onerror=alert(1)> |",
		"> <svg onload=alert(1)>",
	} {
		out := unsafeRender(t, inertHTML(attack))
		for _, live := range []string{"<script", "<img", "<svg", "<details", "<div"} {
			if strings.Contains(out, live) {
				t.Errorf("%q renders %q", attack, out)
			}
		}
	}
}

func TestShiftHeadings(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"# Top\n\ntext", "### Top\n\ntext"},
		{"## Two\n### Three", "#### Two\n##### Three"},
		{"##### Five\n###### Six", "###### Five\n###### Six"},
		{"Setext\n===\n\nafter", "### Setext\n\n\nafter"},
		{"Two lines\nof title\n---", "#### Two lines of title\n"},
		{"> # Quoted", "> ### Quoted"},
		{"```\n# not a heading\n```", "```\n# not a heading\n```"},
		{"#hashtag, not a heading", "#hashtag, not a heading"},
	} {
		if got := shiftHeadings(tc.in, 2); got != tc.want {
			t.Errorf("shiftHeadings(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
