package templates

import (
	"bytes"
	"context"
	"io"

	"github.com/a-h/templ"
	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// The renderer and the policy are built once; both are safe for concurrent use.
var (
	markdown = goldmark.New(goldmark.WithExtensions(extension.GFM))
	policy   = newPolicy()
)

func newPolicy() *bluemonday.Policy {
	p := bluemonday.UGCPolicy()
	p.AllowURLSchemes("http", "https", "mailto")
	p.RequireNoFollowOnLinks(true)
	return p
}

// RenderMarkdown turns user Markdown into sanitised HTML. Raw HTML in the source is dropped by
// goldmark (it is not rendered unsafe), and bluemonday strips whatever else could run.
func RenderMarkdown(source string) string {
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
