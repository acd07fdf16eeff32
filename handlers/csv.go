package handlers

import (
	"encoding/csv"
	"io"
	"regexp"
	"strings"
)

// csvWriter writes CSV downloads with every cell passed through spreadsheetSafe, so no writer
// can forget a field that holds user text: service, region and factor names, titles, owners.
type csvWriter struct{ w *csv.Writer }

func newCSVWriter(w io.Writer) *csvWriter { return &csvWriter{csv.NewWriter(w)} }

// Write guards and writes one row; errors surface from Flush.
func (c *csvWriter) Write(cells ...string) {
	safe := make([]string, len(cells))
	for n, cell := range cells {
		safe[n] = spreadsheetSafe(cell)
	}
	_ = c.w.Write(safe)
}

// Flush writes what is buffered and returns the first error any write met.
func (c *csvWriter) Flush() error {
	c.w.Flush()
	return c.w.Error()
}

// spreadsheetSafe keeps a cell from being read as a formula when the CSV is opened in a
// spreadsheet (CSV injection, OWASP): a cell starting with =, +, - or @, or with a tab or
// carriage return, which some spreadsheets skip before one, gets a leading apostrophe. A plain
// negative number such as -5 or -0.25 is left alone: it is not a formula, and quoting it would
// turn a figure into text.
func spreadsheetSafe(s string) string {
	if s == "" || !strings.ContainsRune("=+-@\t\r", rune(s[0])) || negativeNumber.MatchString(s) {
		return s
	}
	return "'" + s
}

var negativeNumber = regexp.MustCompile(`^-[0-9]+(\.[0-9]+)?$`)
