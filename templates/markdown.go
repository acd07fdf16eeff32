package templates

import (
	"bytes"
	"context"
	"io"
	"sync"

	"github.com/a-h/templ"
	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// The renderer and the policy are built once; both are safe for concurrent use.
var (
	markdown = goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(
		renderer.WithNodeRenderers(util.Prioritized(literalHTML{}, 100)), // before goldmark's own, at 1000
	))
	policy = newPolicy()
)

// literalHTML renders the raw HTML in user Markdown as the text it is. goldmark's own renderer
// drops it ("<!-- raw HTML omitted -->"), so "moved to <tags> & back" lost its <tags>: people
// writing updates mean angle brackets as text, and nothing they type is ever markup. Escaped,
// a <script> or an onerror attribute shows as letters and cannot run.
type literalHTML struct{}

func (literalHTML) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindRawHTML, func(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			segments := node.(*ast.RawHTML).Segments
			for i := range segments.Len() {
				segment := segments.At(i)
				_, _ = w.Write(util.EscapeHTML(segment.Value(source)))
			}
		}
		return ast.WalkSkipChildren, nil
	})
	reg.Register(ast.KindHTMLBlock, func(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
		block := node.(*ast.HTMLBlock)
		if !entering {
			return ast.WalkContinue, nil
		}
		_, _ = w.WriteString("<p>")
		lines := block.Lines()
		for i := range lines.Len() {
			line := lines.At(i)
			_, _ = w.Write(util.EscapeHTML(line.Value(source)))
		}
		if block.HasClosure() {
			_, _ = w.Write(util.EscapeHTML(block.ClosureLine.Value(source)))
		}
		_, _ = w.WriteString("</p>\n")
		return ast.WalkSkipChildren, nil
	})
}

func newPolicy() *bluemonday.Policy {
	p := bluemonday.UGCPolicy()
	p.AllowURLSchemes("http", "https", "mailto")
	p.RequireNoFollowOnLinks(true)
	return p
}

// rendered remembers recent conversions: the same timeline bodies are shown on every view of an
// incident, and parsing plus sanitising is most of a page's rendering time. Entries are pure
// functions of their key, so sharing them across requests is safe.
var rendered = newMemo(4096)

// RenderMarkdown turns user Markdown into sanitised HTML. Raw HTML in the source is shown as text
// (literalHTML), and bluemonday strips whatever else could run.
func RenderMarkdown(source string) string {
	if html, ok := rendered.get(source); ok {
		return html
	}
	html := renderMarkdown(source)
	rendered.put(source, html)
	return html
}

func renderMarkdown(source string) string {
	var buf bytes.Buffer
	if err := markdown.Convert([]byte(source), &buf); err != nil {
		return policy.Sanitize(source)
	}
	return policy.SanitizeReader(&buf).String()
}

// Markdown renders user Markdown as a component; its HTML went through the sanitizer.
func Markdown(source string) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		_, err := io.WriteString(w, RenderMarkdown(source))
		return err
	})
}

// memo is a bounded map from Markdown source to HTML. When full it starts over: simpler than an
// LRU, and a page's working set refills it at once.
type memo struct {
	mu      sync.RWMutex
	entries map[string]string
	limit   int
}

func newMemo(limit int) *memo { return &memo{entries: make(map[string]string, limit), limit: limit} }

func (m *memo) get(key string) (string, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	v, ok := m.entries[key]
	return v, ok
}

func (m *memo) put(key, value string) {
	// Very long sources are rare and would pin memory; they are rendered each time.
	if len(key) > 16<<10 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.entries) >= m.limit {
		clear(m.entries)
	}
	m.entries[key] = value
}
