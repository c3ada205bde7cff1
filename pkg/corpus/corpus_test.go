package corpus

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCorpusIsCurrent checks the embedded corpus is what the notebooks say today.
func TestCorpusIsCurrent(t *testing.T) {
	want, err := Extract(filepath.Join("..", "..", "notebooks"))
	if err != nil {
		t.Fatal(err)
	}
	if Text() != want {
		t.Errorf("pkg/corpus/corpus.txt is out of date with notebooks %02d–%02d: run `go generate ./pkg/corpus`", FirstLesson, LastLesson)
	}
	if len(Text()) < 20000 {
		t.Errorf("corpus has only %d bytes", len(Text()))
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
