package handlers

import "testing"

func TestSpreadsheetSafe(t *testing.T) {
	for in, want := range map[string]string{
		"":                   "",
		"Orchestrator":       "Orchestrator",
		"=cmd|' /C calc'!A0": "'=cmd|' /C calc'!A0",
		"+1+1":               "'+1+1",
		"-2+3":               "'-2+3",
		"@SUM(A1)":           "'@SUM(A1)",
		"\t=1":               "'\t=1",
		"\r=1":               "'\r=1",
		"-5":                 "-5",
		"-0.25":              "-0.25",
		"-Inf":               "'-Inf",
		"-1e3":               "'-1e3",
		"12":                 "12",
		"a=b":                "a=b",
	} {
		if got := spreadsheetSafe(in); got != want {
			t.Errorf("spreadsheetSafe(%q) = %q, want %q", in, got, want)
		}
	}
}
