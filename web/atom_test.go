package web_test

import (
	"encoding/xml"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// atomDoc is an Atom feed as encoding/xml reads it, with what RFC 4287 asks of a feed.
type atomDoc struct {
	XMLName xml.Name     `xml:"http://www.w3.org/2005/Atom feed"`
	ID      string       `xml:"id"`
	Title   string       `xml:"title"`
	Updated string       `xml:"updated"`
	Links   []atomLink   `xml:"link"`
	Authors []atomPerson `xml:"author"`
	Entries []atomEntry  `xml:"entry"`
}

type atomLink struct {
	Href string `xml:"href,attr"`
	Rel  string `xml:"rel,attr"`
}

type atomPerson struct {
	Name string `xml:"name"`
}

type atomText struct {
	Type string `xml:"type,attr"`
	Body string `xml:",chardata"`
}

type atomEntry struct {
	ID      string       `xml:"id"`
	Title   string       `xml:"title"`
	Updated string       `xml:"updated"`
	Links   []atomLink   `xml:"link"`
	Authors []atomPerson `xml:"author"`
	Summary *atomText    `xml:"summary"`
	Content *atomText    `xml:"content"`
}

// parseAtom reads a feed with Go's XML decoder, failing the test when it is not well-formed.
func parseAtom(t *testing.T, body string) atomDoc {
	t.Helper()
	var doc atomDoc
	if err := xml.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatalf("feed does not parse: %v\n%.1500s", err, body)
	}
	return doc
}

// link is the href of the feed's or an entry's link with this rel ("" is alternate).
func link(links []atomLink, rel string) string {
	for _, l := range links {
		if l.Rel == rel || (rel == "alternate" && l.Rel == "") {
			return l.Href
		}
	}
	return ""
}

// readerText is what a feed reader shows of an Atom text construct: HTML is parsed, text is
// taken as it is. It fails the test on any element that carries an event handler or is a script.
func readerText(t *testing.T, where string, c *atomText) string {
	t.Helper()
	if c == nil {
		return ""
	}
	if c.Type != "html" && c.Type != "xhtml" {
		return c.Body
	}
	var text strings.Builder
	z := html.NewTokenizer(strings.NewReader(c.Body))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return text.String()
		case html.TextToken:
			text.Write(z.Text())
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			if tok.Data == "script" || tok.Data == "img" || tok.Data == "iframe" {
				t.Errorf("%s: a live <%s> element in %q", where, tok.Data, c.Body)
			}
			for _, a := range tok.Attr {
				if strings.HasPrefix(strings.ToLower(a.Key), "on") {
					t.Errorf("%s: an event handler %s in %q", where, a.Key, c.Body)
				}
			}
		}
	}
}
