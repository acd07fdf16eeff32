package statuspage

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// htmlTag spots the markup old status pages put in update bodies (GitHub's back-filled history
// is lists of <li><strong>time</strong> - text</li>).
var htmlTag = regexp.MustCompile(`(?i)</?(ul|ol|li|p|br|strong|b|em|i|a|code|pre|div|span|h[1-6])(\s[^>]*)?/?>`)

// ToMarkdown returns an update body as Markdown. Hindsight renders bodies as Markdown and drops raw
// HTML, so an HTML body would show as nothing; it is converted instead: lists, emphasis, code,
// line breaks and http(s) links survive, every other tag is reduced to its text. Text that holds
// no such tags is returned unchanged.
func ToMarkdown(body string) string {
	if !htmlTag.MatchString(body) {
		return body
	}
	// Some back-filled bodies carry escaped line breaks as literal text.
	body = strings.ReplaceAll(body, `\r\n`, "\n")
	nodes, err := html.ParseFragment(strings.NewReader(body), &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div})
	if err != nil {
		return body
	}
	c := converter{}
	for _, n := range nodes {
		c.node(n, 0)
	}
	return tidy(c.b.String())
}

type converter struct {
	b strings.Builder
}

func (c *converter) node(n *html.Node, depth int) {
	switch n.Type {
	case html.TextNode:
		c.b.WriteString(escapeMarkdown(collapseSpace(n.Data)))
		return
	case html.ElementNode:
	default:
		c.children(n, depth)
		return
	}
	switch n.DataAtom {
	case atom.Script, atom.Style, atom.Template, atom.Iframe, atom.Object:
		return
	case atom.Br:
		c.b.WriteString("\n")
	case atom.P, atom.Div, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Blockquote, atom.Pre:
		c.b.WriteString("\n\n")
		c.children(n, depth)
		c.b.WriteString("\n\n")
	case atom.Ul, atom.Ol:
		c.b.WriteString("\n")
		number := 0
		for child := n.FirstChild; child != nil; child = child.NextSibling {
			if child.Type != html.ElementNode || child.DataAtom != atom.Li {
				c.node(child, depth)
				continue
			}
			c.b.WriteString("\n" + strings.Repeat("  ", depth))
			if n.DataAtom == atom.Ol {
				number++
				c.b.WriteString(strconv.Itoa(number) + ". ")
			} else {
				c.b.WriteString("- ")
			}
			c.children(child, depth+1)
		}
		c.b.WriteString("\n\n")
	case atom.Strong, atom.B:
		c.wrap(n, depth, "**")
	case atom.Em, atom.I:
		c.wrap(n, depth, "*")
	case atom.Code:
		c.wrap(n, depth, "`")
	case atom.A:
		href := attr(n, "href")
		u, err := url.Parse(strings.TrimSpace(href))
		// Only a complete web or mail address becomes a link; "http:" alone or a relative path
		// stays plain text.
		web := (u != nil) && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
		mail := (u != nil) && u.Scheme == "mailto" && u.Opaque != ""
		if err != nil || (!web && !mail) {
			c.children(n, depth)
			return
		}
		c.b.WriteString("[")
		c.children(n, depth)
		c.b.WriteString("](" + strings.NewReplacer("(", "%28", ")", "%29", " ", "%20", "<", "%3C", ">", "%3E").Replace(u.String()) + ")")
	default:
		c.children(n, depth)
	}
}

func (c *converter) children(n *html.Node, depth int) {
	for child := n.FirstChild; child != nil; child = child.NextSibling {
		c.node(child, depth)
	}
}

// wrap surrounds an element's text with a marker, keeping the marker off surrounding spaces, where
// Markdown would not see it.
func (c *converter) wrap(n *html.Node, depth int, marker string) {
	inner := converter{}
	inner.children(n, depth)
	text := inner.b.String()
	trimmed := strings.TrimSpace(text)
	if trimmed == "" {
		c.b.WriteString(text)
		return
	}
	lead := text[:strings.Index(text, trimmed)]
	trail := text[len(lead)+len(trimmed):]
	c.b.WriteString(lead + marker + trimmed + marker + trail)
}

func attr(n *html.Node, name string) string {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val
		}
	}
	return ""
}

var spaces = regexp.MustCompile(`[ \t\r\n]+`)

func collapseSpace(s string) string { return spaces.ReplaceAllString(s, " ") }

// escapeMarkdown keeps text from being read as Markdown it never was.
var markdownEscaper = strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`, "<", `\<`, "#", `\#`)

func escapeMarkdown(s string) string { return markdownEscaper.Replace(s) }

var blankLines = regexp.MustCompile(`\n[ \t]*\n(\s*\n)+`)

// tidy trims each line's end, collapses runs of blank lines and trims the whole.
func tidy(s string) string {
	lines := strings.Split(s, "\n")
	for n, line := range lines {
		lines[n] = strings.TrimRight(line, " \t")
	}
	s = strings.Join(lines, "\n")
	s = blankLines.ReplaceAllString(s, "\n\n")
	return strings.TrimSpace(s)
}
