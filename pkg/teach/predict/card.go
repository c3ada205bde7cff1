package predict

import "fmt"

// Card is a recall card computed from what this learner measured: its question quotes their own
// number and asks them to apply it, so the answer is not on the page to reread. Make returns the
// question and its worked answer, or the error of a measurement not made yet.
type Card struct {
	Key  string
	Make func() (question, answer string, err error)
}

// Mine builds a card from a Question's measured answer: ask formats the question from the value,
// answer the worked answer.
func Mine(key string, q Question, ask func(v float64) string, answer func(v float64) string) Card {
	return Card{Key: key, Make: func() (string, string, error) {
		v, err := q.Answer()
		if err != nil {
			return "", "", err
		}
		if v <= 0 {
			return "", "", fmt.Errorf("predict: %s: the measurement is %v, too small to build this card from", key, v)
		}
		return ask(v), answer(v), nil
	}}
}
