package hlo

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Kernels counts what one execution of an optimized HLO module launches. XLA runs each instruction
// of the entry computation (and of the bodies of its loops and calls) as one kernel, except the
// bookkeeping ones that move no data (parameters, constants, tuples, bitcasts); a fusion is one
// kernel however many operations it holds.
type Kernels struct {
	Total    int            // kernels per execution, counted statically (a loop body counts once)
	Fusions  int            // of Total, how many are fusions
	FusedOps int            // operations folded into those fusions (not counting parameters, constants, broadcasts)
	ByOpcode map[string]int // Total split by opcode: "fusion", "dot", "custom-call", "copy", …
}

// String is one line: "1 kernel (1 fusion of 16 ops)".
func (k Kernels) String() string {
	s := fmt.Sprintf("%d kernel%s", k.Total, plural(k.Total))
	if k.Fusions > 0 {
		s += fmt.Sprintf(" (%d fusion%s of %d ops)", k.Fusions, plural(k.Fusions), k.FusedOps)
	}
	if others := k.Total - k.Fusions; others > 0 && k.Fusions > 0 {
		var parts []string
		for _, op := range sortedKeys(k.ByOpcode) {
			if op != "fusion" {
				parts = append(parts, fmt.Sprintf("%d %s", k.ByOpcode[op], op))
			}
		}
		s += " + " + strings.Join(parts, ", ")
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// free are opcodes that launch nothing: they name, pack or reinterpret buffers.
var free = map[string]bool{
	"parameter": true, "constant": true, "tuple": true, "get-tuple-element": true, "bitcast": true,
	"after-all": true, "add-dependency": true, "opt-barrier": true, "partition-id": true,
	"replica-id": true, "domain": true,
	// control flow: the kernels are in the computations they run, counted there.
	"while": true, "conditional": true, "call": true,
}

// instruction is one parsed HLO line.
type instruction struct {
	name     string // without the %: "add.0"
	typ      string // the result type: "f32[4]{0}", or a tuple type in parentheses
	opcode   string
	operands string // inside the operand list's parentheses
	attrs    string // everything after the operand list
}

// computation is one HLO computation with its instructions.
type computation struct {
	name  string
	entry bool
	insts []instruction
}

var (
	// "%name (p: f32[4]) -> f32[4] {", "ENTRY %main.1 (…) -> … {", also without the %.
	compHeader = regexp.MustCompile(`^(ENTRY\s+)?%?([^\s(]+)\s.*\{\s*$`)
	// "  ROOT %add.0 = f32[4]{0} add(…), metadata=…"
	instLine = regexp.MustCompile(`^\s*(?:ROOT\s+)?%?([^\s=]+)\s*=\s*(.*)$`)
	// references to computations run as code: loop bodies and conditions, branches, called computations.
	controlRef = regexp.MustCompile(`(?:body|condition|to_apply)=%?([^\s,{}]+)|branch_computations=\{([^}]*)\}`)
	fusionRef  = regexp.MustCompile(`calls=%?([^\s,{}]+)`)
)

// parseModule splits HLO text into computations.
func parseModule(text string) ([]computation, error) {
	var comps []computation
	var cur *computation
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "HloModule") || strings.HasPrefix(trimmed, "//"):
			continue
		case cur == nil:
			m := compHeader.FindStringSubmatch(trimmed)
			if m == nil {
				return nil, fmt.Errorf("hlo: HLO line outside a computation: %q", trimmed)
			}
			comps = append(comps, computation{name: m[2], entry: m[1] != ""})
			cur = &comps[len(comps)-1]
		case trimmed == "}":
			cur = nil
		default:
			m := instLine.FindStringSubmatch(line)
			if m == nil {
				return nil, fmt.Errorf("hlo: not an HLO instruction: %q", trimmed)
			}
			in, err := splitOpcode(m[2])
			if err != nil {
				return nil, err
			}
			in.name = m[1]
			cur.insts = append(cur.insts, in)
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("hlo: HLO computation %s is not closed", cur.name)
	}
	return comps, nil
}

// splitOpcode takes "f32[4]{0} add(%a, %b), metadata=…" (or a tuple type in parentheses) and
// returns its result type, opcode, operand list and what follows the operand list.
func splitOpcode(rhs string) (instruction, error) {
	rest := rhs
	if strings.HasPrefix(rest, "(") { // tuple type: skip the balanced parentheses
		end := matchParen(rest)
		if end < 0 {
			return instruction{}, fmt.Errorf("hlo: unbalanced tuple type in %q", rhs)
		}
		rest = rest[end+1:]
	} else if i := strings.IndexByte(rest, ' '); i >= 0 {
		rest = rest[i:]
	}
	typ := strings.TrimSpace(rhs[:len(rhs)-len(rest)])
	rest = strings.TrimSpace(rest)
	open := strings.IndexByte(rest, '(')
	if open <= 0 {
		return instruction{}, fmt.Errorf("hlo: no opcode in %q", rhs)
	}
	end := matchParen(rest[open:])
	if end < 0 {
		return instruction{}, fmt.Errorf("hlo: unbalanced operands in %q", rhs)
	}
	return instruction{typ: typ, opcode: rest[:open], operands: rest[open+1 : open+end], attrs: rest[open+end+1:]}, nil
}

// matchParen returns the index of the parenthesis closing s[0], or −1.
func matchParen(s string) int {
	depth := 0
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// CountKernels parses the text of an optimized HLO module (XLA's "*after_optimizations.txt" dump)
// and counts its kernels. It is an error if the text holds no entry computation.
func CountKernels(hlo string) (Kernels, error) {
	m, err := parseKernels(hlo)
	if err != nil {
		return Kernels{}, err
	}
	k := Kernels{ByOpcode: map[string]int{}}
	for _, in := range m.kernels {
		k.Total++
		k.ByOpcode[in.opcode]++
		if in.opcode == "fusion" {
			k.Fusions++
			if f := fusionRef.FindStringSubmatch(in.attrs); f != nil {
				k.FusedOps += fusedOps(m.byName, f[1], map[string]bool{})
			}
		}
	}
	return k, nil
}

// module is a parsed HLO module: its computations by name and, in execution order, the
// instructions that run as kernels (those of the entry computation and of the bodies of its loops
// and calls, a loop body once; not the bookkeeping ones in free), each with its computation.
type module struct {
	byName  map[string]*computation
	kernels []instruction
	in      []*computation // in[i] is the computation kernels[i] belongs to
}

// parseKernels parses hlo and lists its kernels; an error if it holds no entry computation.
func parseKernels(hlo string) (module, error) {
	comps, err := parseModule(hlo)
	if err != nil {
		return module{}, err
	}
	m := module{byName: map[string]*computation{}}
	var entry *computation
	for i := range comps {
		m.byName[comps[i].name] = &comps[i]
		if comps[i].entry {
			entry = &comps[i]
		}
	}
	if entry == nil {
		return module{}, fmt.Errorf("hlo: no ENTRY computation in the HLO text")
	}
	seen := map[string]bool{}
	var visit func(c *computation)
	visit = func(c *computation) {
		if seen[c.name] {
			return
		}
		seen[c.name] = true
		for _, in := range c.insts {
			if in.opcode == "while" || in.opcode == "conditional" || in.opcode == "call" {
				for _, r := range controlRef.FindAllStringSubmatch(in.attrs, -1) {
					names := []string{r[1]}
					if r[2] != "" {
						names = strings.Split(r[2], ",")
					}
					for _, n := range names {
						if sub := m.byName[strings.TrimPrefix(strings.TrimSpace(n), "%")]; sub != nil {
							visit(sub)
						}
					}
				}
			}
			if !free[in.opcode] {
				m.kernels = append(m.kernels, in)
				m.in = append(m.in, c)
			}
		}
	}
	visit(entry)
	return m, nil
}

// fusedOps counts the operations of a fused computation, descending into nested fusions.
func fusedOps(byName map[string]*computation, name string, seen map[string]bool) int {
	c := byName[name]
	if c == nil || seen[name] {
		return 0
	}
	seen[name] = true
	n := 0
	for _, in := range c.insts {
		switch in.opcode {
		case "parameter", "constant", "broadcast", "tuple", "get-tuple-element", "bitcast":
			// indexing, not work: a broadcast scalar is read in place inside the fusion
		case "fusion":
			if m := fusionRef.FindStringSubmatch(in.attrs); m != nil {
				n += fusedOps(byName, m[1], seen)
			}
		default:
			n++
		}
	}
	return n
}
