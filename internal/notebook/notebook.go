// Package notebook reads, writes and lints the course's Jupyter notebooks (.ipynb, nbformat 4) from
// Go: the structure conventions of the course (kernel, lesson metadata, objectives, a recall check
// closing every section, a recap at the end), stripped outputs, no absolute paths of an author's
// machine, and gofmt-clean GoNB cells that import only this module, the standard library and modules
// pinned in go.mod. See lessons/AUTHORING.md for the conventions in prose.
package notebook

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Notebook is an .ipynb file: the parts the course's tools read and write.
type Notebook struct {
	Path          string         `json:"-"`
	Metadata      map[string]any `json:"metadata"`
	NBFormat      int            `json:"nbformat"`
	NBFormatMinor int            `json:"nbformat_minor"`
	Cells         []*Cell        `json:"cells"`
}

// Cell is one notebook cell. Source is the cell's text joined into one string.
type Cell struct {
	Type     string         `json:"cell_type"` // "code", "markdown" or "raw"
	ID       string         `json:"id,omitempty"`
	Source   Source         `json:"source"`
	Metadata map[string]any `json:"metadata"`
	// Outputs and ExecutionCount exist on code cells only; in a committed notebook they are empty.
	Outputs        []map[string]any `json:"outputs,omitempty"`
	ExecutionCount *int             `json:"execution_count,omitempty"`
	// Attachments (markdown cells) are kept as they are.
	Attachments map[string]any `json:"attachments,omitempty"`
}

// Source is a cell's text; nbformat stores it as a string or as a list of lines.
type Source string

// UnmarshalJSON accepts both forms.
func (s *Source) UnmarshalJSON(b []byte) error {
	var str string
	if err := json.Unmarshal(b, &str); err == nil {
		*s = Source(str)
		return nil
	}
	var lines []string
	if err := json.Unmarshal(b, &lines); err != nil {
		return fmt.Errorf("cell source is neither a string nor a list of strings: %w", err)
	}
	*s = Source(strings.Join(lines, ""))
	return nil
}

// Lines splits the source as nbformat writes it: each line keeps its "\n", the last may lack one.
func (s Source) Lines() []string {
	if s == "" {
		return []string{}
	}
	return strings.SplitAfter(string(s), "\n")
}

// Text is the source as a string.
func (c *Cell) Text() string { return string(c.Source) }

// Read parses a notebook file.
func Read(path string) (*Notebook, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	nb, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	nb.Path = path
	return nb, nil
}

// Parse parses notebook JSON.
func Parse(b []byte) (*Notebook, error) {
	var nb Notebook
	if err := json.Unmarshal(b, &nb); err != nil {
		return nil, fmt.Errorf("not a notebook (invalid JSON): %w", err)
	}
	if nb.NBFormat != 4 {
		return nil, fmt.Errorf("nbformat %d is not supported (want 4)", nb.NBFormat)
	}
	if nb.Metadata == nil {
		nb.Metadata = map[string]any{}
	}
	for _, c := range nb.Cells {
		if c.Metadata == nil {
			c.Metadata = map[string]any{}
		}
	}
	return &nb, nil
}

// Name is the notebook's file name without ".ipynb", e.g. "01-race": the lesson id.
func (nb *Notebook) Name() string {
	return strings.TrimSuffix(filepath.Base(nb.Path), ".ipynb")
}

// KernelName is metadata.kernelspec.name ("" when absent).
func (nb *Notebook) KernelName() string {
	ks, _ := nb.Metadata["kernelspec"].(map[string]any)
	name, _ := ks["name"].(string)
	return name
}

// Lesson reads metadata.whygpu.lesson: the lesson id and whether the key is set at all. A notebook
// that is not a lesson (00-setup-check) has "lesson": false or no key.
func (nb *Notebook) Lesson() (id string, isLesson, present bool) {
	w, ok := nb.Metadata["whygpu"].(map[string]any)
	if !ok {
		return "", false, false
	}
	v, ok := w["lesson"]
	if !ok {
		return "", false, false
	}
	switch v := v.(type) {
	case string:
		return v, true, true
	case bool:
		return "", false, true
	}
	return fmt.Sprint(v), true, true
}

// Expectations reads a code cell's metadata.whygpu.expect: "chart" or "re:<regex>" entries that the
// notebook tests (and `whygpu run`) check in the executed cell's outputs.
func (c *Cell) Expectations() []string {
	w, _ := c.Metadata["whygpu"].(map[string]any)
	list, _ := w["expect"].([]any)
	var out []string
	for _, e := range list {
		out = append(out, fmt.Sprint(e))
	}
	return out
}

// NewCellID returns a random cell id (8 hex digits, like JupyterLab's).
func NewCellID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// cellIDRe is nbformat 4.5's pattern for a cell id (1–64 letters, digits, '-' or '_').
var cellIDRe = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// GiveIDs gives a fresh id to every cell without a valid one, or whose id an earlier cell already
// has (nbformat 4.5 requires unique ids; nbformat warns that a missing id will be an error). It
// reports how many cells it changed.
func (nb *Notebook) GiveIDs() int {
	seen := map[string]bool{}
	n := 0
	for _, c := range nb.Cells {
		if !cellIDRe.MatchString(c.ID) || seen[c.ID] {
			c.ID = NewCellID()
			for seen[c.ID] {
				c.ID = NewCellID()
			}
			n++
		}
		seen[c.ID] = true
	}
	return n
}

// Marshal writes the notebook as nbformat does (one-space indent, sorted keys, source as a list of
// lines, no HTML escaping), so files written by Go and by JupyterLab diff cleanly. Every cell is
// written with an id: a cell without one gets a fresh id first (GiveIDs).
func (nb *Notebook) Marshal() ([]byte, error) {
	nb.GiveIDs()
	cells := make([]any, 0, len(nb.Cells))
	for _, c := range nb.Cells {
		m := map[string]any{
			"cell_type": c.Type,
			"metadata":  orEmpty(c.Metadata),
			"source":    c.Source.Lines(),
		}
		m["id"] = c.ID
		if c.Type == "code" {
			outs := make([]any, 0, len(c.Outputs))
			for _, o := range c.Outputs {
				outs = append(outs, o)
			}
			m["outputs"] = outs
			if c.ExecutionCount != nil {
				m["execution_count"] = *c.ExecutionCount
			} else {
				m["execution_count"] = nil
			}
		}
		if c.Attachments != nil {
			m["attachments"] = c.Attachments
		}
		cells = append(cells, m)
	}
	doc := map[string]any{
		"cells":          cells,
		"metadata":       orEmpty(nb.Metadata),
		"nbformat":       4,
		"nbformat_minor": max(nb.NBFormatMinor, 5),
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Write marshals the notebook to path.
func (nb *Notebook) Write(path string) error {
	b, err := nb.Marshal()
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// Strip clears every code cell's outputs and execution count; it reports whether anything changed.
func (nb *Notebook) Strip() bool {
	changed := false
	for _, c := range nb.Cells {
		if c.Type != "code" {
			continue
		}
		if len(c.Outputs) > 0 || c.ExecutionCount != nil {
			changed = true
		}
		c.Outputs, c.ExecutionCount = nil, nil
	}
	return changed
}
