package notebook

import (
	"fmt"
	"go/format"
	"go/parser"
	"go/scanner"
	"go/token"
	"strconv"
	"strings"
)

// A GoNB cell is not a Go file. GoNB (v0.11.4, internal/goexec/composer.go) turns it into one by:
//   - prepending "package main";
//   - turning a "%%" (or "%main") line into "func main() {" and closing it at the end of the cell, so
//     the lines after "%%" are statements of main (written unindented in the cell);
//   - taking out "%..." special-command lines and "!..." shell lines (a trailing "\" continues them
//     on the next line); a "//gonb:" prefix is stripped first.
//
// GoFile does the same with a one-to-one line mapping (special lines become "//gonb:special"
// comments), so gofmt's verdict and the parser's line numbers map back to the cell's lines.

const specialMarker = "//gonb:special"

// GoFile is a cell turned into a Go source file.
type GoFile struct {
	Src     string // the Go file: "package main", a blank line, then line i of the cell at line i+2
	HasMain bool   // the cell had a "%%" line: the lines after it are the body of main
	MainAt  int    // cell line index of the "%%" line (-1 when none)
	lines   []string
	special map[int]bool // cell line indices that are special commands
}

// ToGo turns GoNB cell text into a Go file.
func ToGo(cell string) *GoFile {
	lines := strings.Split(strings.TrimRight(cell, "\n"), "\n")
	g := &GoFile{lines: lines, MainAt: -1, special: map[int]bool{}}
	var b strings.Builder
	b.WriteString("package main\n\n")
	continued := false
	for i, line := range lines {
		t := strings.TrimPrefix(line, "//gonb:")
		trimmed := strings.TrimSpace(t)
		switch {
		case continued:
			g.special[i] = true
			continued = strings.HasSuffix(t, "\\")
			b.WriteString(specialMarker + "\n")
		case !g.HasMain && (trimmed == "%%" || strings.HasPrefix(trimmed, "%% ") || strings.HasPrefix(trimmed, "%main")):
			g.HasMain, g.MainAt = true, i
			b.WriteString("func main() {\n")
		case len(t) > 1 && (t[0] == '%' || t[0] == '!'):
			g.special[i] = true
			continued = strings.HasSuffix(t, "\\")
			b.WriteString(specialMarker + "\n")
		case strings.HasPrefix(line, "package "):
			// GoNB drops a package clause; so do we.
			g.special[i] = true
			b.WriteString(specialMarker + "\n")
		default:
			b.WriteString(line + "\n")
		}
	}
	if g.HasMain {
		b.WriteString("}\n")
	}
	g.Src = b.String()
	return g
}

// SpecialLines returns the cell's special-command and shell lines (without the "//gonb:" prefix).
func (g *GoFile) SpecialLines() []string {
	var out []string
	for i, l := range g.lines {
		if g.special[i] {
			out = append(out, strings.TrimPrefix(l, "//gonb:"))
		}
	}
	return out
}

// CellError is a problem at a line of a cell (1-based; 0 when it is about the whole cell).
type CellError struct {
	Line int
	Msg  string
}

func (e CellError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

// Parse parses the Go file, mapping syntax errors back to cell lines.
func (g *GoFile) Parse(mode parser.Mode) (*token.FileSet, error) {
	fset := token.NewFileSet()
	_, err := parser.ParseFile(fset, "cell.go", g.Src, mode)
	if err != nil {
		if list, ok := err.(scanner.ErrorList); ok && len(list) > 0 {
			e := list[0]
			return fset, CellError{Line: g.cellLine(e.Pos.Line), Msg: e.Msg}
		}
		return fset, CellError{Msg: err.Error()}
	}
	return fset, nil
}

// cellLine maps a line of Src (1-based) to a line of the cell (1-based).
func (g *GoFile) cellLine(srcLine int) int {
	l := srcLine - 2
	if l < 1 {
		return 1
	}
	if l > len(g.lines) {
		return len(g.lines)
	}
	return l
}

// Imports returns the import paths of the cell with their cell line numbers (1-based).
func (g *GoFile) Imports() (map[string]int, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "cell.go", g.Src, parser.ImportsOnly)
	if err != nil {
		if list, ok := err.(scanner.ErrorList); ok && len(list) > 0 {
			return nil, CellError{Line: g.cellLine(list[0].Pos.Line), Msg: list[0].Msg}
		}
		return nil, err
	}
	out := map[string]int{}
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		out[p] = g.cellLine(fset.Position(imp.Pos()).Line)
	}
	return out, nil
}

// Gofmt formats the cell the way gofmt formats the equivalent Go file and maps the result back to
// cell form: the body of main loses the one tab gofmt gives it (raw-string lines are left alone),
// special lines come back verbatim. It returns the formatted cell text.
func (g *GoFile) Gofmt() (string, error) {
	if _, err := g.Parse(parser.ParseComments); err != nil {
		return "", err
	}
	out, err := format.Source([]byte(g.Src))
	if err != nil {
		return "", CellError{Msg: "gofmt: " + err.Error()}
	}
	flines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	raw := rawStringInteriorLines(out)
	// flines[0] is "package main", then the blank line we put after it.
	var cell []string
	specials := g.SpecialLines()
	inMain := false
	mainEnd := -1
	if g.HasMain {
		// The closing brace we added is the last line.
		mainEnd = len(flines) - 1
	}
	for i := 2; i < len(flines); i++ {
		l := flines[i]
		if i == mainEnd {
			break
		}
		if g.HasMain && !inMain && strings.TrimSpace(l) == "func main() {" && l == "func main() {" {
			inMain = true
			cell = append(cell, g.lines[g.MainAt])
			continue
		}
		if strings.TrimSpace(l) == specialMarker {
			if len(specials) > 0 {
				cell = append(cell, specials[0])
				specials = specials[1:]
			}
			continue
		}
		if inMain && !raw[i+1] {
			l = strings.TrimPrefix(l, "\t")
		}
		cell = append(cell, l)
	}
	return strings.Join(cell, "\n"), nil
}

// rawStringInteriorLines returns the (1-based) lines that lie inside a multi-line raw string after
// its first line: gofmt never re-indents them.
func rawStringInteriorLines(src []byte) map[int]bool {
	out := map[int]bool{}
	fset := token.NewFileSet()
	file := fset.AddFile("x.go", -1, len(src))
	var s scanner.Scanner
	s.Init(file, src, nil, scanner.ScanComments)
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if (tok == token.STRING && strings.HasPrefix(lit, "`")) || tok == token.COMMENT && strings.HasPrefix(lit, "/*") {
			start := fset.Position(pos).Line
			n := strings.Count(lit, "\n")
			for l := start + 1; l <= start+n; l++ {
				out[l] = true
			}
		}
	}
	return out
}

// GofmtDiff compares a cell with its gofmt form and describes the first difference (line numbers
// are the cell's, 1-based). It returns "" when the cell is gofmt-clean.
func GofmtDiff(cell string) (string, error) {
	g := ToGo(cell)
	formatted, err := g.Gofmt()
	if err != nil {
		return "", err
	}
	orig := strings.Split(strings.TrimRight(cell, "\n"), "\n")
	want := strings.Split(formatted, "\n")
	if strings.Join(orig, "\n") == formatted {
		return "", nil
	}
	for i := 0; i < max(len(orig), len(want)); i++ {
		var o, w string
		if i < len(orig) {
			o = orig[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if o != w {
			switch {
			case i >= len(orig):
				return fmt.Sprintf("line %d: gofmt adds %q", i+1, w), nil
			case i >= len(want):
				return fmt.Sprintf("line %d: gofmt removes %q", i+1, o), nil
			}
			return fmt.Sprintf("line %d: have %q, gofmt wants %q", i+1, o, w), nil
		}
	}
	return "", nil
}
