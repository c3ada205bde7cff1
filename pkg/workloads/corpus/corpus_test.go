package corpus

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCorpusIsCurrent checks the embedded corpus is still the notebooks' prose. Other lessons' prose
// changes every day, so a few changed paragraphs are only logged (regenerate when convenient); the
// test fails when more than a quarter of the corpus's paragraphs are no longer in the notebooks.
func TestCorpusIsCurrent(t *testing.T) {
	want, err := Extract(filepath.Join("..", "..", "..", "notebooks"))
	if err != nil {
		t.Fatal(err)
	}
	if len(Text()) < 20000 {
		t.Fatalf("corpus has only %d bytes", len(Text()))
	}
	if Text() == want {
		return
	}
	current := map[string]bool{}
	for _, p := range strings.Split(want, "\n\n") {
		current[p] = true
	}
	paras := strings.Split(Text(), "\n\n")
	gone := 0
	for _, p := range paras {
		if !current[p] {
			gone++
		}
	}
	t.Logf("pkg/workloads/corpus/corpus.txt differs from notebooks %02d–%02d in %d of %d paragraphs: run `go generate ./pkg/workloads/corpus`", FirstLesson, LastLesson, gone, len(paras))
	if gone*4 > len(paras) {
		t.Errorf("corpus.txt is stale (%d of %d paragraphs changed): run `go generate ./pkg/workloads/corpus`", gone, len(paras))
	}
}

func TestTokenizer(t *testing.T) {
	tok := NewTokenizer()
	tests := []struct {
		in      string
		wantErr bool
	}{
		{"the GPU", false},
		{"", false},
		{"emoji 🦫", true},
	}
	for _, tc := range tests {
		ids, err := tok.Encode(tc.in)
		if (err != nil) != tc.wantErr {
			t.Fatalf("Encode(%q) error %v, want error %v", tc.in, err, tc.wantErr)
		}
		if err == nil && tok.Decode(ids) != tc.in {
			t.Errorf("round trip of %q gave %q", tc.in, tok.Decode(ids))
		}
	}
	if tok.Size() < 30 || tok.Size() > 300 {
		t.Errorf("vocabulary of %d characters", tok.Size())
	}
}

func TestClean(t *testing.T) {
	got := clean("**Objectives** see [the doc](x.md)\n\n\n\n| a |\n|---|\n`code`")
	if strings.Contains(got, "**") || strings.Contains(got, "](") || strings.Contains(got, "---") || strings.Contains(got, "\n\n\n") {
		t.Errorf("clean left markup: %q", got)
	}
}
