package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

const blamingSentence = "The engineer should have checked the config; human error."

// TestAPIReviewLanguage: the wording check answers a viewer with findings whose offsets count
// characters; bad input is a 400, 413 or 422 with a message, never a 500.
func TestAPIReviewLanguage(t *testing.T) {
	viewer := newServer(t).as("viewer")
	r := viewer.json(http.MethodPost, "/api/v1/review/language", map[string]any{"text": blamingSentence})
	check(t, "findings", r, http.StatusOK, []string{
		`{"rule":"counterfactual","start":13,"end":24,"match":"should have","message":"Counterfactual wording`,
		`{"rule":"blame","start":45,"end":56,"match":"human error"`,
		`"suggestion":"Describe what happened and what the people involved saw at the time. Ask: what made this look right at the time?"`,
	}, nil)
	var body struct {
		Findings []struct {
			Rule       string `json:"rule"`
			Start, End int
			Match      string `json:"match"`
		} `json:"findings"`
	}
	// Characters, not bytes: the curly apostrophe and the em dash are 3 bytes each.
	r = viewer.json(http.MethodPost, "/api/v1/review/language", map[string]any{"text": "“Cold” — we shouldn’t have restarted."})
	r.decode(t, &body)
	if len(body.Findings) != 1 || body.Findings[0].Start != 12 || body.Findings[0].End != 26 || body.Findings[0].Match != "shouldn’t have" {
		t.Errorf("curly text: %+v", body.Findings)
	}

	check(t, "disabled", viewer.json(http.MethodPost, "/api/v1/review/language", map[string]any{"text": blamingSentence, "disabled": []string{"blame"}}),
		http.StatusOK, []string{`"rule":"counterfactual"`}, []string{`"rule":"blame"`})
	check(t, "empty text", viewer.json(http.MethodPost, "/api/v1/review/language", `{"text": ""}`), http.StatusOK, []string{`{"findings":[]}`}, nil)
	check(t, "no text", viewer.json(http.MethodPost, "/api/v1/review/language", `{}`), http.StatusOK, []string{`{"findings":[]}`}, nil)
	check(t, "seed 004", viewer.json(http.MethodPost, "/api/v1/review/language", map[string]any{"text": "Unfortunately, human error resulted in this change being deployed for all customers."}),
		http.StatusOK, []string{`"rule":"blame","start":15,"end":26,"match":"human error"`}, nil)

	check(t, "bad JSON", viewer.json(http.MethodPost, "/api/v1/review/language", `{"text": "should have`), http.StatusBadRequest, []string{`"error":"The request body is not valid JSON`}, nil)
	check(t, "empty body", viewer.json(http.MethodPost, "/api/v1/review/language", nil), http.StatusBadRequest, []string{`"error"`}, nil)
	check(t, "text not a string", viewer.json(http.MethodPost, "/api/v1/review/language", `{"text": 12}`), http.StatusUnprocessableEntity, []string{`"field":"text"`}, nil)
	check(t, "unknown rule", viewer.json(http.MethodPost, "/api/v1/review/language", map[string]any{"text": "x", "disabled": []string{"blame", "passive-voice"}}),
		http.StatusUnprocessableEntity, []string{`"field":"disabled"`, `There is no rule \"passive-voice\"`}, []string{`findings`})
	big := `{"text": "` + strings.Repeat("should have ", 90_000) + `"}`
	check(t, "over 1 MiB", viewer.json(http.MethodPost, "/api/v1/review/language", big), http.StatusRequestEntityTooLarge, []string{`"error"`}, nil)
	check(t, "anonymous", viewer.anonymous().json(http.MethodPost, "/api/v1/review/language", map[string]any{"text": "x"}), http.StatusForbidden, nil, []string{"findings"})

	// A viewer's API token may check wording: it only reads.
	token := viewer.post("/account/tokens", url.Values{"name": {"editor plugin"}})
	client := viewer.anonymous()
	client.bearer = tokenPattern.FindString(token.body)
	check(t, "viewer token", client.json(http.MethodPost, "/api/v1/review/language", map[string]any{"text": blamingSentence}), http.StatusOK, []string{`"rule":"blame"`}, nil)
	check(t, "bad token", viewer.anonymous().doWith(http.MethodPost, "/api/v1/review/language", nil, map[string]string{"Authorization": "Bearer hs_nope"}), http.StatusUnauthorized, nil, []string{"findings"})
}

// switchLanguageRules saves the account page's rule switches with only the given rules ticked.
func switchLanguageRules(t *testing.T, a *app, on ...string) {
	t.Helper()
	r := a.post("/account/language", url.Values{"on": on})
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/account#language" {
		t.Fatalf("switch rules: status %d, location %q: %.300s", r.status, r.header.Get("Location"), r.body)
	}
}

// TestLanguageOnPreviewAndEdit: the postmortem preview and the edit form show the findings of the
// narrative; a rule switched off on the account page disappears from both and from the API's
// default, and nothing of it blocks saving.
func TestLanguageOnPreviewAndEdit(t *testing.T) {
	a := newApp(t)
	path := a.createIncident(with(seed000Form(), "root_cause", blamingSentence, "summary", "Why did the gateway drop Canada?"))
	check(t, "preview", a.get(path+"/postmortem"), http.StatusOK, []string{
		`<h2 id="language-h">Wording check</h2>`,
		`<h3>Root cause</h3>`, `<mark>should have</mark>`, `<mark>human error</mark>`,
		`<h3>Summary</h3>`, `<mark>Why did the gateway drop Canada?</mark>`,
		"Try instead:", "Blaming words end the inquiry at a person.",
	}, []string{`id="language-none"`})
	check(t, "edit", a.get(path+"/edit"), http.StatusOK, []string{
		`id="root_cause-language"`, `id="summary-language"`, `<mark>should have</mark>`, `<mark>human error</mark>`,
	}, []string{`id="lessons-language"`})
	check(t, "account", a.get("/account"), http.StatusOK, []string{`id="rule-blame" type="checkbox" name="on" value="blame" checked`}, nil)

	switchLanguageRules(t, a, "counterfactual", "why-question", "single-root-cause-person")
	check(t, "account after", a.get("/account"), http.StatusOK, []string{"3 of 4 rules on", `id="rule-counterfactual" type="checkbox" name="on" value="counterfactual" checked`},
		[]string{`value="blame" checked`})
	check(t, "preview without blame", a.get(path+"/postmortem"), http.StatusOK, []string{`<mark>should have</mark>`, "Switched off on your account:"}, []string{`<mark>human error</mark>`})
	check(t, "edit without blame", a.get(path+"/edit"), http.StatusOK, []string{`<mark>should have</mark>`}, []string{`<mark>human error</mark>`})
	check(t, "API default", a.json(http.MethodPost, "/api/v1/review/language", map[string]any{"text": blamingSentence}), http.StatusOK,
		[]string{`"rule":"counterfactual"`}, []string{`"rule":"blame"`})
	check(t, "API explicit", a.json(http.MethodPost, "/api/v1/review/language", map[string]any{"text": blamingSentence, "disabled": []string{}}), http.StatusOK,
		[]string{`"rule":"counterfactual"`, `"rule":"blame"`}, nil)

	switchLanguageRules(t, a)
	check(t, "preview, all off", a.get(path+"/postmortem"), http.StatusOK, []string{`id="language-none"`}, []string{"<mark>"})
	check(t, "edit, all off", a.get(path+"/edit"), http.StatusOK, nil, []string{"-language\"", "<mark>"})

	// Another user's switches are their own.
	other := a.as("viewer")
	check(t, "other user's preview", other.get(path+"/postmortem"), http.StatusOK, []string{`<mark>should have</mark>`, `<mark>human error</mark>`}, nil)

	// The findings never block saving.
	form := with(seed000Form(), "root_cause", blamingSentence+" If only we had known.", "version", "1")
	if r := a.post(path+"/edit", form); r.status != http.StatusSeeOther {
		t.Errorf("save with findings: status %d: %.400s", r.status, r.body)
	}
}
