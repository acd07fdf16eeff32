package models

import (
	"fmt"
	"strings"
)

// DiffLine is one line of a line-by-line comparison: Op is ' ' for a line both texts have, '-'
// for one only the old text has and '+' for one only the new text has.
type DiffLine struct {
	Op   byte
	Text string
}

// diffCellLimit bounds the comparison table; texts larger than that are shown as replaced whole.
const diffCellLimit = 4 << 20

// LineDiff compares two texts line by line along their longest common subsequence of lines, the
// way diff(1) does, so that a re-publish shows which lines it removes and adds.
func LineDiff(old, new string) []DiffLine {
	a, b := splitLines(old), splitLines(new)
	// Lines shared at both ends need no table.
	prefix := 0
	for prefix < len(a) && prefix < len(b) && a[prefix] == b[prefix] {
		prefix++
	}
	suffix := 0
	for suffix < len(a)-prefix && suffix < len(b)-prefix && a[len(a)-1-suffix] == b[len(b)-1-suffix] {
		suffix++
	}
	var out []DiffLine
	for _, line := range a[:prefix] {
		out = append(out, DiffLine{' ', line})
	}
	out = append(out, middleDiff(a[prefix:len(a)-suffix], b[prefix:len(b)-suffix])...)
	for _, line := range a[len(a)-suffix:] {
		out = append(out, DiffLine{' ', line})
	}
	return out
}

func middleDiff(a, b []string) []DiffLine {
	var out []DiffLine
	if len(a)*len(b) > diffCellLimit {
		for _, line := range a {
			out = append(out, DiffLine{'-', line})
		}
		for _, line := range b {
			out = append(out, DiffLine{'+', line})
		}
		return out
	}
	// common[i][j] is the length of the longest common subsequence of a[i:] and b[j:].
	common := make([][]int, len(a)+1)
	for i := range common {
		common[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				common[i][j] = common[i+1][j+1] + 1
			} else {
				common[i][j] = max(common[i+1][j], common[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			out = append(out, DiffLine{' ', a[i]})
			i, j = i+1, j+1
		case common[i+1][j] >= common[i][j+1]:
			out = append(out, DiffLine{'-', a[i]})
			i++
		default:
			out = append(out, DiffLine{'+', b[j]})
			j++
		}
	}
	for ; i < len(a); i++ {
		out = append(out, DiffLine{'-', a[i]})
	}
	for ; j < len(b); j++ {
		out = append(out, DiffLine{'+', b[j]})
	}
	return out
}

func splitLines(s string) []string {
	s = strings.TrimRight(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// DiffChanged tells whether a comparison found any difference.
func DiffChanged(lines []DiffLine) bool {
	for _, l := range lines {
		if l.Op != ' ' {
			return true
		}
	}
	return false
}

// DiffSkip marks a line standing for a run of unchanged lines DiffContext left out.
const DiffSkip = '~'

// DiffContext keeps the changed lines and up to context unchanged lines on each side of them;
// each run of unchanged lines left out becomes one line, Op DiffSkip, saying how many.
func DiffContext(lines []DiffLine, context int) []DiffLine {
	keep := make([]bool, len(lines))
	for n, l := range lines {
		if l.Op == ' ' {
			continue
		}
		for k := max(0, n-context); k <= min(len(lines)-1, n+context); k++ {
			keep[k] = true
		}
	}
	var out []DiffLine
	for n := 0; n < len(lines); {
		if keep[n] {
			out = append(out, lines[n])
			n++
			continue
		}
		run := 0
		for n < len(lines) && !keep[n] {
			run, n = run+1, n+1
		}
		text := fmt.Sprintf("%d unchanged lines", run)
		if run == 1 {
			text = "1 unchanged line"
		}
		out = append(out, DiffLine{DiffSkip, text})
	}
	return out
}
