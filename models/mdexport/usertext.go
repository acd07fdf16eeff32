package mdexport

import (
	"bytes"
	"regexp"
	"slices"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// An export is read by renderers Hindsight does not control: a wiki, a Git host, Statuspage,
// an editor's preview. Many of them pass raw HTML through and follow any link, so the Markdown
// that leaves must hold no HTML that could come alive, whatever the renderer. Hindsight shows
// what users typed in angle brackets as text (templates.RenderMarkdown); an export keeps it as
// text too, by entity-escaping it.

// userHeadingShift is how many levels a user's heading moves down: the export's title is a level
// 1 heading and its sections level 2, so a user's "# Heading" inside Root Cause becomes level 3.
const userHeadingShift = 2

// parsers read Markdown as the renderers of an export do: CommonMark, and GitHub's dialect,
// whose tables and autolinks cut text differently.
var parsers = []parser.Parser{
	goldmark.New().Parser(),
	goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser(),
}

// userText prepares one field of user Markdown for an export: its HTML is made text and its
// headings are moved below the section that will hold it.
func userText(s string) string {
	return shiftHeadings(inertHTML(strings.TrimSpace(s)), userHeadingShift)
}

// maxPasses bounds inertHTML's passes. Escaping one construct can change how the text around it
// parses (an HTML block that becomes a paragraph takes in the lines after it), so it parses
// again until nothing live is left; real text settles in one or two passes.
const maxPasses = 32

// inertHTML entity-escapes the raw HTML in Markdown (inline tags, comments and HTML blocks, so
// any renderer shows them as the text they are) and disarms links whose scheme could run
// (javascript:, data:, vbscript:…) by escaping their opening bracket. Code spans and blocks are
// left as they are: their text is never markup.
func inertHTML(s string) string {
	src := []byte(s)
	for range maxPasses {
		var edits []edit
		for _, p := range parsers {
			edits = append(edits, liveConstructs(p, src)...)
		}
		if len(edits) == 0 {
			return string(src)
		}
		src = apply(src, edits)
	}
	// Text built to keep coming alive loses all its markup instead.
	return strings.NewReplacer("<", "&lt;", "[", `\[`).Replace(string(src))
}

// edit replaces src[from:to] with text.
type edit struct {
	from, to int
	text     string
}

// apply makes the edits, which may repeat but do not overlap otherwise, from last to first.
func apply(src []byte, edits []edit) []byte {
	slices.SortFunc(edits, func(a, b edit) int {
		if a.from != b.from {
			return b.from - a.from
		}
		if a.to != b.to {
			return b.to - a.to
		}
		return strings.Compare(a.text, b.text)
	})
	edits = slices.Compact(edits)
	out := slices.Clone(src)
	for _, e := range edits {
		out = slices.Concat(out[:e.from], []byte(e.text), out[e.to:])
	}
	return out
}

// liveConstructs finds what a renderer could turn into live HTML and the edit that disarms each.
func liveConstructs(p parser.Parser, src []byte) []edit {
	var edits []edit
	escapeAngles := func(seg text.Segment) {
		for i := seg.Start; i < seg.Stop; i++ {
			if src[i] == '<' {
				edits = append(edits, edit{i, i + 1, "&lt;"})
			}
		}
	}
	bracket := func(at int) {
		if at >= 0 && at < len(src) && src[at] == '[' {
			edits = append(edits, edit{at, at, `\`})
		}
	}
	doc := p.Parse(text.NewReader(src))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.RawHTML:
			for i := range n.Segments.Len() {
				escapeAngles(n.Segments.At(i))
			}
		case *ast.HTMLBlock:
			for i := range n.Lines().Len() {
				escapeAngles(n.Lines().At(i))
			}
			if n.HasClosure() {
				escapeAngles(n.ClosureLine)
			}
		case *ast.Link:
			if runnable(n.Destination) {
				bracket(n.Pos())
			}
		case *ast.Image:
			if runnable(n.Destination) {
				bracket(n.Pos() + 1) // after the !
			}
		case *ast.AutoLink:
			if at := n.Pos(); runnable(n.URL(src)) && at >= 0 && at < len(src) && src[at] == '<' {
				edits = append(edits, edit{at, at + 1, "&lt;"})
			}
		}
		return ast.WalkContinue, nil
	})
	return edits
}

var schemePattern = regexp.MustCompile(`^[a-z][a-z0-9+.\-]*:`)

// runnable tells whether a link's destination has a scheme other than http, https or mailto.
// Browsers ignore spaces and control characters inside a scheme, so they are dropped first.
func runnable(destination []byte) bool {
	cleaned := strings.ToLower(strings.Map(func(r rune) rune {
		if r <= ' ' {
			return -1
		}
		return r
	}, string(destination)))
	scheme := schemePattern.FindString(cleaned)
	return scheme != "" && scheme != "http:" && scheme != "https:" && scheme != "mailto:"
}

// shiftHeadings moves every heading of Markdown down by levels, to at most level 6. An ATX
// heading gets more #; a setext heading (text underlined with = or -) becomes an ATX one, since
// an underline can say only levels 1 and 2.
func shiftHeadings(s string, levels int) string {
	src := []byte(s)
	var edits []edit
	doc := parsers[1].Parse(text.NewReader(src))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		h, ok := n.(*ast.Heading)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		at, level := h.Pos(), min(h.Level+levels, 6)
		if at < 0 || at >= len(src) || level == h.Level {
			return ast.WalkSkipChildren, nil
		}
		if src[at] == '#' {
			edits = append(edits, edit{at, at, strings.Repeat("#", level-h.Level)})
			return ast.WalkSkipChildren, nil
		}
		lines := h.Lines()
		if lines.Len() == 0 {
			return ast.WalkSkipChildren, nil
		}
		edits = append(edits, edit{at, at, strings.Repeat("#", level) + " "})
		// Its lines join into one, and the underline goes.
		for i := 1; i < lines.Len(); i++ {
			prev, next := lines.At(i-1), lines.At(i)
			if nl := bytes.IndexByte(src[prev.Start:next.Start], '\n'); nl >= 0 {
				edits = append(edits, edit{prev.Start + nl, next.Start, " "})
			}
		}
		last := lines.At(lines.Len() - 1)
		nl := bytes.IndexByte(src[last.Start:], '\n')
		if nl < 0 {
			return ast.WalkSkipChildren, nil
		}
		underline := last.Start + nl + 1
		end := len(src)
		if e := bytes.IndexByte(src[underline:], '\n'); e >= 0 {
			end = underline + e
		}
		if run := bytes.IndexAny(src[underline:end], "=-"); run >= 0 {
			edits = append(edits, edit{underline + run, end, ""})
		}
		return ast.WalkSkipChildren, nil
	})
	if len(edits) == 0 {
		return s
	}
	return string(apply(src, edits))
}
