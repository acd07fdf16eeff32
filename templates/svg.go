package templates

import (
	"context"
	"html"
	"io"
	"strconv"
	"strings"

	"github.com/a-h/templ"
)

// svgWriter builds SVG markup for the pictures and charts. Geometry is worked out in Go; every
// piece of text and every attribute value goes through html.EscapeString. Colours come from
// classes the stylesheets define, never from inline styles, which the Content-Security-Policy
// forbids.
type svgWriter struct{ b strings.Builder }

func num(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

func esc(s string) string { return html.EscapeString(s) }

func (w *svgWriter) raw(s string) { w.b.WriteString(s) }

// open starts the svg element; title and desc name it for assistive technology.
func (w *svgWriter) open(id, class string, width, height float64, title, desc string) {
	w.b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" class="` + esc(class) + `" viewBox="0 0 ` + num(width) + ` ` + num(height) +
		`" role="img" aria-labelledby="` + esc(id) + `-title ` + esc(id) + `-desc" preserveAspectRatio="xMinYMin meet">`)
	w.b.WriteString(`<title id="` + esc(id) + `-title">` + esc(title) + `</title><desc id="` + esc(id) + `-desc">` + esc(desc) + `</desc>`)
}

func (w *svgWriter) close() { w.b.WriteString(`</svg>`) }

// titled closes an element with a <title> child, the tooltip and accessible name of one mark.
func (w *svgWriter) titled(tag, title string) {
	if title == "" {
		w.b.WriteString(`/>`)
		return
	}
	w.b.WriteString(`><title>` + esc(title) + `</title></` + tag + `>`)
}

func (w *svgWriter) rect(class string, x, y, width, height float64, title string) {
	if width < 0 {
		x, width = x+width, -width
	}
	w.b.WriteString(`<rect class="` + esc(class) + `" x="` + num(x) + `" y="` + num(y) + `" width="` + num(width) + `" height="` + num(height) + `"`)
	w.titled("rect", title)
}

func (w *svgWriter) line(class string, x1, y1, x2, y2 float64, title string) {
	w.b.WriteString(`<line class="` + esc(class) + `" x1="` + num(x1) + `" y1="` + num(y1) + `" x2="` + num(x2) + `" y2="` + num(y2) + `"`)
	w.titled("line", title)
}

func (w *svgWriter) circle(class string, cx, cy, r float64, title string) {
	w.b.WriteString(`<circle class="` + esc(class) + `" cx="` + num(cx) + `" cy="` + num(cy) + `" r="` + num(r) + `"`)
	w.titled("circle", title)
}

func (w *svgWriter) path(class, d, title string) {
	w.b.WriteString(`<path class="` + esc(class) + `" d="` + esc(d) + `"`)
	w.titled("path", title)
}

// text writes a label; anchor is start, middle or end.
func (w *svgWriter) text(class string, x, y float64, anchor, s string) {
	w.b.WriteString(`<text class="` + esc(class) + `" x="` + num(x) + `" y="` + num(y) + `"`)
	if anchor != "" && anchor != "start" {
		w.b.WriteString(` text-anchor="` + anchor + `"`)
	}
	w.b.WriteString(`>` + esc(s) + `</text>`)
}

func (w *svgWriter) group(class, title string) {
	w.b.WriteString(`<g class="` + esc(class) + `">`)
	if title != "" {
		w.b.WriteString(`<title>` + esc(title) + `</title>`)
	}
}

func (w *svgWriter) endGroup() { w.b.WriteString(`</g>`) }

func (w *svgWriter) String() string { return w.b.String() }

// svgComponent renders markup built by an svgWriter, whose every text went through esc.
func svgComponent(markup string) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		_, err := io.WriteString(w, markup)
		return err
	})
}

// textWidth estimates the width of a label at the charts' 11 px font, for placing labels so they
// do not collide; SVG has no layout of its own.
func textWidth(s string) float64 {
	n := 0
	for range s {
		n++
	}
	return float64(n)*6.1 + 2
}
