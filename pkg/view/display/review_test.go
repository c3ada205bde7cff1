package display

import (
	"strings"
	"testing"
)

func TestReviewText(t *testing.T) {
	out := captureStdout(t, func() {
		if err := Review("04"); err != nil {
			t.Fatal(err)
		}
	})
	if !strings.Contains(out, "Review before lesson 04") || strings.Count(out, "Answer:") < 2 {
		t.Errorf("review text:\n%s", out)
	}
	if strings.Contains(out, "(lesson 04)") || strings.Contains(out, "(lesson 05)") {
		t.Errorf("a card from lesson 04 or later:\n%s", out)
	}
}
