package importer

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// exampleLimit is how many records a summary names for one reason or warning unless verbose.
const exampleLimit = 5

// Write prints the summary for a person: the counts, why records were skipped, what updates
// change, and the warnings, each reason once with how many records share it. Verbose lists
// every record.
func (s Summary) Write(w io.Writer, verbose bool) error {
	var b strings.Builder
	verb := map[bool][4]string{
		false: {"created", "updated", "unchanged", "skipped"},
		true:  {"would create", "would update", "unchanged", "would skip"},
	}[s.DryRun]
	if s.DryRun {
		b.WriteString("Dry run: nothing was written.\n")
	}
	fmt.Fprintf(&b, "%d record(s): %s %d, %s %d, %s %d, %s %d", len(s.Results),
		verb[0], s.Created, verb[1], s.Updated, verb[2], s.Unchanged, verb[3], s.Skipped)
	if s.Maintenances > 0 {
		fmt.Fprintf(&b, ", planned maintenance kept %d", s.Maintenances)
	}
	if s.Bad > 0 {
		fmt.Fprintf(&b, ", invalid %d (not imported)", s.Bad)
	}
	b.WriteString(".\n")

	group := func(title string, pick func(Result) []string) {
		counts := map[string][]string{}
		for _, r := range s.Results {
			for _, key := range pick(r) {
				counts[key] = append(counts[key], r.Record)
			}
		}
		if len(counts) == 0 {
			return
		}
		keys := make([]string, 0, len(counts))
		for k := range counts {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			if len(counts[keys[i]]) != len(counts[keys[j]]) {
				return len(counts[keys[i]]) > len(counts[keys[j]])
			}
			return keys[i] < keys[j]
		})
		fmt.Fprintf(&b, "\n%s:\n", title)
		for _, k := range keys {
			names := counts[k]
			fmt.Fprintf(&b, "  %d × %s\n", len(names), k)
			limit := exampleLimit
			if verbose {
				limit = len(names)
			}
			for n, name := range names {
				if n == limit {
					fmt.Fprintf(&b, "      … and %d more\n", len(names)-n)
					break
				}
				fmt.Fprintf(&b, "      %s\n", name)
			}
		}
	}
	group("Skipped", func(r Result) []string {
		if r.Action == Skip {
			return []string{r.Reason}
		}
		return nil
	})
	group("Kept as planned maintenance", func(r Result) []string {
		if r.Action == Maintain {
			return []string{r.Reason}
		}
		return nil
	})
	group("Invalid", func(r Result) []string {
		var out []string
		for _, fe := range r.Errors {
			out = append(out, fe.Field+": "+fe.Message)
		}
		return out
	})
	group(map[bool]string{false: "Updated", true: "Would update"}[s.DryRun], func(r Result) []string {
		if r.Action == Update {
			return []string{"changes " + strings.Join(r.Changes, ", ")}
		}
		return nil
	})
	group("Warnings", func(r Result) []string {
		if r.Action == Skip || r.Action == Invalid {
			return nil
		}
		return r.Warnings
	})
	if verbose {
		b.WriteString("\nRecords:\n")
		for _, r := range s.Results {
			line := fmt.Sprintf("  %-9s %s", r.Action, r.Record)
			if r.IncidentID != 0 {
				line += fmt.Sprintf(" → incident %d", r.IncidentID)
			}
			b.WriteString(line + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
