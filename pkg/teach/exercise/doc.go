// Package exercise holds the course's "write the formula" cells: the learner writes one formula of
// the lesson as a small Go function whose body starts as a placeholder (`return 0 // ← your
// formula`), and Check compares it with the course's own formula on a few inputs and, where the
// lesson has measured something, with the learner's own measurement.
//
// Nothing here fails a notebook: an unanswered placeholder, a wrong formula, a function of the wrong
// shape or one that panics is a Report that says so (with a hint), never an error of the cell.
// Package display renders a Report, with the worked answer behind a fold.
package exercise
