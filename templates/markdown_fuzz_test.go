package templates_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"hindsight/models/demo"
	"hindsight/templates"
)

// FuzzRenderMarkdown renders arbitrary Markdown, seeded with the samples' narrative, the real
// status-page bodies in testdata and known attacks, and asserts that no panic happens and nothing
// that could run reaches the page: no script, style, frame or object element, no on… handler
// attribute, and no javascript:, vbscript: or data: URL. The checks read the output as HTML, as
// a browser would: the same words as text ("javascript: is …", "a onclick=b") are harmless and
// allowed.
func FuzzRenderMarkdown(f *testing.F) {
	for _, sample := range demo.Incidents() {
		in := sample.Incident
		for _, text := range []string{in.Summary, in.CustomerImpact, in.RootCause, in.Detection, in.Response, in.Lessons} {
			f.Add(text)
		}
	}
	for _, pattern := range []string{"../testdata/cstate/*.md", "../testdata/statuspage/*.json"} {
		files, _ := filepath.Glob(pattern)
		for _, name := range files {
			data, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			if len(data) > 4096 {
				data = data[:4096]
			}
			f.Add(string(data))
		}
	}
	for _, attack := range []string{
		"<script>alert(1)</script>",
		"[x](javascript:alert(1))",
		"[x](JaVaScRiPt:alert(1))",
		"[x](java\tscript:alert(1))",
		"![x](javascript:alert(1))",
		"<javascript:alert(1)>",
		"[x]: javascript:alert(1)\n\n[y][x]",
		`<img src=x onerror=alert(1)>`,
		`<a href="jav&#x09;ascript:alert(1)">x</a>`,
		"<div onclick=\"alert(1)\">x</div>",
		"<svg><script>alert(1)</script></svg>",
		"<iframe src=https://example.com></iframe>",
		"[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
		"<style>body{background:url(javascript:alert(1))}</style>",
		"`<script>`",
		"a onclick=b and javascript:void(0) in plain text",
		"<<script>script>alert(1)<</script>/script>",
		"<a href='vbscript:msgbox(1)'>v</a>",
		"- [ ] <details open ontoggle=alert(1)>",
	} {
		f.Add(attack)
	}
	f.Fuzz(func(t *testing.T, source string) {
		out := templates.RenderMarkdown(source)
		if problem := unsafeHTML(out); problem != "" {
			t.Fatalf("%s\nsource: %q\noutput: %q", problem, source, out)
		}
	})
}

// unsafeHTML returns what in the HTML could run, or "".
func unsafeHTML(out string) string {
	if strings.Contains(strings.ToLower(out), "<script") {
		return "a <script tag"
	}
	z := html.NewTokenizer(strings.NewReader(out))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			switch tok.Data {
			case "script", "style", "iframe", "frame", "object", "embed", "base", "meta", "link", "form":
				return "a <" + tok.Data + "> element"
			}
			for _, a := range tok.Attr {
				key := strings.ToLower(a.Key)
				if strings.HasPrefix(key, "on") {
					return "an event handler attribute " + a.Key
				}
				switch key {
				case "href", "src", "action", "formaction", "xlink:href", "srcset", "poster", "background", "cite":
					value := strings.Map(func(r rune) rune {
						if r <= ' ' {
							return -1 // browsers ignore spaces and control characters in a scheme
						}
						return r
					}, strings.ToLower(a.Val))
					for _, scheme := range []string{"javascript:", "vbscript:", "data:"} {
						if strings.HasPrefix(value, scheme) {
							return "a " + scheme + " URL in " + a.Key
						}
					}
				}
			}
		}
	}
}
