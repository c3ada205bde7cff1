// Package recall holds a lesson's recall checks: after each section, a question or two the learner
// answers aloud before revealing the answer, and a running "n of m recalled" count for the lesson.
//
// A lesson declares one Deck with its cards grouped by section; the notebook calls
// display.Recall(deck, "section-id") at the end of each section. This package renders a section's
// cards as HTML (for notebooks and exported pages) or plain text (for `go run` and logs); it knows
// nothing about GoNB.
//
// How the HTML behaves:
//
//   - The question is always visible; the answer sits in a <details> element whose <summary>
//     ("Reveal the answer") opens it. This needs no JavaScript, so it works in headless runs
//     (nbclient stores the HTML), in nbconvert's HTML export and in renderers that strip scripts.
//   - With JavaScript (JupyterLab runs scripts in outputs produced in the session; an exported
//     HTML page runs them too), revealing an answer shows two buttons, "I had it" and "Not yet".
//     A card counts as recalled once the learner marks it "I had it"; the counter of every recall
//     check of the lesson on the page ("n of m recalled", m being all cards of the deck) updates.
//     Marks live in the browser's localStorage under "whygpu-recall/<lesson>/<section>/<card>", so
//     they survive re-running cells and reloading the page. A "reset" link clears the lesson's.
//   - Without JavaScript the counter keeps its rendered text, "0 of m recalled".
//
// Stable hooks for tests and styling: the root element has class "whygpu-recall" and attributes
// data-recall-lesson, data-recall-section, data-recall-total (m) and data-recall-cards (the deck's
// card keys as a JSON array); each card has class "whygpu-recall-card" and data-recall-card (its
// key "<section>/<card>") and data-recall-state ("", "yes" or "no"); the answer is in
// .whygpu-recall-answer inside details.whygpu-recall-reveal; the buttons carry
// data-recall-grade="yes" / "no"; the counter is .whygpu-recall-count with data-recall-count (n).
package recall
