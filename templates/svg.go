package templates

import (
	"context"
	"html"
	"io"
	"strconv"

	"github.com/a-h/templ"
)

// svgWriter builds SVG markup for the pictures and charts. Geometry is worked out in Go; every
// piece of text and every attribute value goes through html.EscapeString. Colours come from
// classes the stylesheets define, never from inline styles, which the Content-Security-Policy
// forbids. Numbers are appended in place: a picture writes a few thousand of them.
type svgWriter struct{ b []byte }

func num(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

func esc(s string) string { return html.EscapeString(s) }

func (w *svgWriter) raw(s string) { w.b = append(w.b, s...) }

func (w *svgWriter) num(v float64) { w.b = strconv.AppendFloat(w.b, v, 'f', 1, 64) }

// attr writes ` name="value"` with the value escaped.
func (w *svgWriter) attr(name, value string) {
	w.b = append(w.b, ' ')
	w.b = append(w.b, name...)
	w.b = append(w.b, `="`...)
	w.b = append(w.b, esc(value)...)
	w.b = append(w.b, '"')
}

// nums writes ` name="1.0"` for each pair.
func (w *svgWriter) nums(names []string, values ...float64) {
	for n, v := range values {
		w.b = append(w.b, ' ')
		w.b = append(w.b, names[n]...)
		w.b = append(w.b, `="`...)
		w.num(v)
		w.b = append(w.b, '"')
	}
}

// open starts the svg element; title and desc name it for assistive technology.
func (w *svgWriter) open(id, class string, width, height float64, title, desc string) {
	if w.b == nil {
		w.b = make([]byte, 0, 48<<10)
	}
	w.raw(`<svg xmlns="http://www.w3.org/2000/svg"`)
	w.attr("class", class)
	w.raw(` viewBox="0 0 `)
	w.num(width)
	w.raw(" ")
	w.num(height)
	w.raw(`" role="img"`)
	w.attr("aria-labelledby", id+"-title "+id+"-desc")
	w.raw(` preserveAspectRatio="xMinYMin meet"><title`)
	w.attr("id", id+"-title")
	w.raw(">" + esc(title) + "</title><desc")
	w.attr("id", id+"-desc")
	w.raw(">" + esc(desc) + "</desc>")
}

func (w *svgWriter) close() { w.raw(`</svg>`) }

// titled closes an element with a <title> child, the tooltip and accessible name of one mark.
func (w *svgWriter) titled(tag, title string) {
	if title == "" {
		w.raw(`/>`)
		return
	}
	w.raw(`><title>`)
	w.raw(esc(title))
	w.raw(`</title></`)
	w.raw(tag)
	w.raw(`>`)
}

var rectAttrs, lineAttrs, circleAttrs, textAttrs = []string{"x", "y", "width", "height"}, []string{"x1", "y1", "x2", "y2"}, []string{"cx", "cy", "r"}, []string{"x", "y"}

func (w *svgWriter) rect(class string, x, y, width, height float64, title string) {
	if width < 0 {
		x, width = x+width, -width
	}
	w.raw(`<rect`)
	w.attr("class", class)
	w.nums(rectAttrs, x, y, width, height)
	w.titled("rect", title)
}

func (w *svgWriter) line(class string, x1, y1, x2, y2 float64, title string) {
	w.raw(`<line`)
	w.attr("class", class)
	w.nums(lineAttrs, x1, y1, x2, y2)
	w.titled("line", title)
}

func (w *svgWriter) circle(class string, cx, cy, r float64, title string) {
	w.raw(`<circle`)
	w.attr("class", class)
	w.nums(circleAttrs, cx, cy, r)
	w.titled("circle", title)
}

func (w *svgWriter) path(class, d, title string) {
	w.raw(`<path`)
	w.attr("class", class)
	w.attr("d", d)
	w.titled("path", title)
}

// text writes a label; anchor is start, middle or end.
func (w *svgWriter) text(class string, x, y float64, anchor, s string) {
	w.raw(`<text`)
	w.attr("class", class)
	w.nums(textAttrs, x, y)
	if anchor != "" && anchor != "start" {
		w.attr("text-anchor", anchor)
	}
	w.raw(`>`)
	w.raw(esc(s))
	w.raw(`</text>`)
}

func (w *svgWriter) group(class, title string) {
	w.raw(`<g`)
	w.attr("class", class)
	w.raw(`>`)
	if title != "" {
		w.raw(`<title>` + esc(title) + `</title>`)
	}
}

func (w *svgWriter) endGroup() { w.raw(`</g>`) }

func (w *svgWriter) String() string { return string(w.b) }

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
