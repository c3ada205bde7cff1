package notebook

import (
	"strings"
	"unicode"
)

// The word budget of issue 33: a lesson is read in its time only if its main path is short.
const (
	WordBudgetTotal  = 12000 // main-path Markdown words of lessons 01–11 together
	WordBudgetLesson = 1300  // of any one lesson
)

// MainPathWords counts the words a learner reads on a lesson's main path: the Markdown cells before
// the "## Going further (optional)" cell, without fenced code blocks (code is not prose) and without
// HTML tags. A word is a run of characters holding at least one letter or digit ("2·B·D·H" is one;
// a table rule or a lone "—" is none).
func MainPathWords(nb *Notebook) int {
	n := 0
	for _, c := range nb.Cells {
		if c.Type != "markdown" {
			continue
		}
		text := c.Text()
		if strings.HasPrefix(strings.TrimSpace(text), GoingFurther) {
			break
		}
		n += proseWords(text)
	}
	return n
}

// proseWords counts the words of Markdown outside fenced code blocks and HTML tags.
func proseWords(md string) int {
	n := 0
	for _, line := range outsideFences(md) {
		for _, w := range strings.Fields(stripTags(line)) {
			if strings.IndexFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
				n++
			}
		}
	}
	return n
}

// stripTags replaces HTML tags (<details>, <summary>, <br>) with spaces.
func stripTags(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
			b.WriteRune(' ')
		case r == '>' && in:
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}
