package corpus

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

//go:generate go run ./gen

//go:embed corpus.txt
var text string

// Text is the embedded corpus.
func Text() string { return text }

// FirstLesson and LastLesson bound the notebooks the corpus is made of (their numbers).
const FirstLesson, LastLesson = 1, 8

var notebookName = regexp.MustCompile(`^(\d\d)-[a-z0-9-]+\.ipynb$`)

// Extract reads the Markdown cells of notebooks FirstLesson…LastLesson in dir (in file-name order)
// and returns their prose: Markdown emphasis, code ticks and table rules removed, blank lines
// collapsed. It is what `go generate` writes to corpus.txt.
func Extract(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("corpus: %w", err)
	}
	var names []string
	for _, e := range entries {
		m := notebookName.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		var n int
		fmt.Sscanf(m[1], "%d", &n)
		if n >= FirstLesson && n <= LastLesson {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "", fmt.Errorf("corpus: no lesson notebooks in %s", dir)
	}
	var b strings.Builder
	for _, name := range names {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return "", fmt.Errorf("corpus: %w", err)
		}
		var nb struct {
			Cells []struct {
				Type   string   `json:"cell_type"`
				Source []string `json:"source"`
			} `json:"cells"`
		}
		if err := json.Unmarshal(raw, &nb); err != nil {
			return "", fmt.Errorf("corpus: %s: %w", name, err)
		}
		for _, c := range nb.Cells {
			if c.Type == "markdown" {
				b.WriteString(clean(strings.Join(c.Source, "")))
				b.WriteString("\n\n")
			}
		}
	}
	return strings.TrimSpace(b.String()) + "\n", nil
}

var (
	emphasis  = strings.NewReplacer("**", "", "`", "", "<br>", " ", "&nbsp;", " ")
	tableRule = regexp.MustCompile(`^\|?\s*:?-{3,}`)
	link      = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	blanks    = regexp.MustCompile(`\n{3,}`)
)

func clean(md string) string {
	var out []string
	for _, line := range strings.Split(md, "\n") {
		if tableRule.MatchString(strings.TrimSpace(line)) {
			continue
		}
		line = link.ReplaceAllString(line, "$1")
		out = append(out, strings.TrimRight(emphasis.Replace(line), " "))
	}
	return blanks.ReplaceAllString(strings.TrimSpace(strings.Join(out, "\n")), "\n\n")
}

// Vocab is the corpus's characters, sorted: token i is Vocab()[i].
func Vocab() []rune {
	seen := map[rune]bool{}
	for _, r := range text {
		seen[r] = true
	}
	v := make([]rune, 0, len(seen))
	for r := range seen {
		v = append(v, r)
	}
	sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
	return v
}

// Tokenizer maps characters to token ids and back.
type Tokenizer struct {
	vocab []rune
	index map[rune]int32
}

// NewTokenizer returns the tokenizer of the corpus's characters.
func NewTokenizer() *Tokenizer {
	t := &Tokenizer{vocab: Vocab(), index: map[rune]int32{}}
	for i, r := range t.vocab {
		t.index[r] = int32(i)
	}
	return t
}

// Size is the number of distinct tokens.
func (t *Tokenizer) Size() int { return len(t.vocab) }

// Encode turns s into token ids; a character the corpus never uses is an error naming it.
func (t *Tokenizer) Encode(s string) ([]int32, error) {
	ids := make([]int32, 0, len(s))
	for _, r := range s {
		id, ok := t.index[r]
		if !ok {
			return nil, fmt.Errorf("corpus: the character %q is not in the training text (the model knows %d characters)", r, len(t.vocab))
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// Decode turns token ids back into text.
func (t *Tokenizer) Decode(ids []int32) string {
	var b strings.Builder
	for _, id := range ids {
		if id >= 0 && int(id) < len(t.vocab) {
			b.WriteRune(t.vocab[id])
		}
	}
	return b.String()
}
