package recall

import (
	"encoding/json"
	"html"
	"regexp"
	"strings"
	"testing"
)

func deck() *Deck {
	return &Deck{
		Lesson: "01-race", Title: "Latency vs throughput",
		Sections: []Section{
			{ID: "cores", Title: "Few fast cores, many slow ones", Cards: []Card{
				{Question: "What does a CPU core optimize for?", Answer: "Latency: finishing one thing fast."},
				{ID: "gpu", Question: "And a GPU?", Answer: "Throughput: `many` things at once.\n\nEven if each is slow."},
			}},
			{ID: "flops", Title: "Counting FLOPs", Cards: []Card{
				{Question: "FLOPs of a dense layer's forward pass?", Answer: "2·B·D·H <b>"},
			}},
		},
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(d *Deck)
		want   string // "" for valid
	}{
		{"valid", func(d *Deck) {}, ""},
		{"no lesson", func(d *Deck) { d.Lesson = "" }, "lesson ID"},
		{"bad lesson", func(d *Deck) { d.Lesson = "01 race" }, "lesson ID"},
		{"no sections", func(d *Deck) { d.Sections = nil }, "no sections"},
		{"duplicate section", func(d *Deck) { d.Sections[1].ID = "cores" }, "appears twice"},
		{"empty section", func(d *Deck) { d.Sections[1].Cards = nil }, "has no cards"},
		{"duplicate card", func(d *Deck) { d.Sections[0].Cards[1].ID = "1" }, `card "1" appears twice`},
		{"bad card ID", func(d *Deck) { d.Sections[0].Cards[1].ID = "a/b" }, "card ID"},
		{"missing answer", func(d *Deck) { d.Sections[1].Cards[0].Answer = " " }, "needs a question and an answer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := deck()
			tc.mutate(d)
			err := d.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestKeysAndTotal(t *testing.T) {
	d := deck()
	if got, want := strings.Join(d.Keys(), " "), "cores/1 cores/gpu flops/1"; got != want {
		t.Errorf("Keys = %q, want %q", got, want)
	}
	if d.Total() != 3 {
		t.Errorf("Total = %d, want 3", d.Total())
	}
	if _, err := d.Section("nope"); err == nil || !strings.Contains(err.Error(), "cores, flops") {
		t.Errorf("missing section: %v", err)
	}
}

func TestHTML(t *testing.T) {
	d := deck()
	tests := []struct {
		section string
		want    []string
		notWant []string
	}{
		{"cores", []string{
			`class="whygpu-recall"`, `data-recall-lesson="01-race"`, `data-recall-section="cores"`, `data-recall-total="3"`,
			`data-recall-card="cores/1"`, `data-recall-card="cores/gpu"`,
			`<details class="whygpu-recall-reveal"><summary>Reveal the answer</summary>`,
			`<div class="whygpu-recall-answer">Latency: finishing one thing fast.</div>`,
			`<code>many</code>`, `</p><p>Even if each is slow.`,
			`class="whygpu-recall-count" data-recall-count="0">0 of 3 recalled<`,
			Prompt, `data-recall-grade="yes"`, `data-recall-grade="no"`, "<script>", "localStorage",
		}, []string{"flops/1\" data-recall-state"}},
		{"flops", []string{`Counting FLOPs`, `2·B·D·H &lt;b&gt;`, `data-recall-card="flops/1"`}, []string{"<b>\"", "2·B·D·H <b>"}},
	}
	for _, tc := range tests {
		t.Run(tc.section, func(t *testing.T) {
			h, err := HTML(d, tc.section)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(h, w) {
					t.Errorf("HTML lacks %q", w)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(h, w) {
					t.Errorf("HTML has %q", w)
				}
			}
			// The whole deck's keys ride along, so any card can count every card of the lesson.
			m := regexp.MustCompile(`data-recall-cards="([^"]*)"`).FindStringSubmatch(h)
			var keys []string
			if m == nil || json.Unmarshal([]byte(html.UnescapeString(m[1])), &keys) != nil || len(keys) != 3 {
				t.Errorf("data-recall-cards = %v, want the deck's 3 keys", m)
			}
			// The answer is inside the <details>, after the <summary>: hidden until revealed.
			if i, j := strings.Index(h, "<summary>"), strings.Index(h, `class="whygpu-recall-answer"`); i < 0 || j < i {
				t.Error("the answer is not inside the reveal")
			}
			if strings.Count(h, "<details") != strings.Count(h, "</details>") || strings.Count(h, "<div") != strings.Count(h, "</div>") {
				t.Error("unbalanced tags")
			}
		})
	}
	if _, err := HTML(d, "nope"); err == nil {
		t.Error("HTML of a missing section gave no error")
	}
}

func TestText(t *testing.T) {
	got, err := Text(deck(), "cores")
	if err != nil {
		t.Fatal(err)
	}
	want := `Recall check — Few fast cores, many slow ones (2 of the 3 cards of this lesson)
Say the answer aloud before you reveal it.
  Q1. What does a CPU core optimize for?
      Answer: Latency: finishing one thing fast.
  Q2. And a GPU?
      Answer: Throughput: ` + "`many`" + ` things at once. Even if each is slow.
`
	if got != want {
		t.Errorf("Text =\n%s\nwant\n%s", got, want)
	}
}
