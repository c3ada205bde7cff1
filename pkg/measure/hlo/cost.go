package hlo

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Kernel is one kernel of an optimized HLO module with what it computes and moves, read from the
// HLO's shapes: what a per-kernel performance model needs (package gpumodel).
//
// The module is whatever XLA compiled it for; the course compiles for xla:cpu, whose fusion
// choices differ from XLA's GPU compiler (which, for instance, fuses an optimizer's update of all
// parameters differently and runs GEMMs through cuBLAS or Triton): the kernels are the CPU
// compile's, and a model that uses them says so.
type Kernel struct {
	Name   string // the instruction: "ynn_fusion.8"
	Opcode string // "fusion", "dot", "copy", "reduce", …
	Class  string // one of Classes
	// FLOPs are the arithmetic it does: 2·B·M·N·K per matrix product, one per output element of an
	// elementwise operation, one per input element of a reduction; moving data (broadcast,
	// transpose, copy, slice, gather …) is none.
	FLOPs float64
	// Bytes are its operands read and results written, each once, from their shapes: the least
	// traffic to and from device memory, as if nothing stayed in a cache between kernels.
	Bytes float64
	Dots  []Dot  // the matrix products it holds (a GEMM kernel has one)
	DType string // element type of its (first) result: "f32", "bf16", …
}

// Dot is one matrix product inside a kernel: Batch independent M×K by K×N products.
type Dot struct{ Batch, M, N, K int }

// The kernel classes, in the order a table lists them.
const (
	ClassGEMM        = "matrix product (GEMM)"
	ClassElementwise = "elementwise (fused)"
	ClassReduction   = "reduction"
	ClassCopy        = "copy / transpose"
	ClassGather      = "gather / scatter / slice"
	ClassOther       = "other"
)

// Classes are the kernel classes, in table order.
var Classes = []string{ClassGEMM, ClassElementwise, ClassReduction, ClassCopy, ClassGather, ClassOther}

// moves are opcodes that move or reinterpret data without arithmetic.
var moves = map[string]bool{
	"parameter": true, "constant": true, "broadcast": true, "reshape": true, "bitcast": true,
	"transpose": true, "copy": true, "slice": true, "dynamic-slice": true, "dynamic-update-slice": true,
	"concatenate": true, "pad": true, "iota": true, "convert": true, "gather": true, "scatter": true,
	"tuple": true, "get-tuple-element": true, "reverse": true, "bitcast-convert": true,
	"copy-start": true, "copy-done": true,
}

// KernelsOf parses the text of an optimized HLO module and returns its kernels in execution
// order (those CountKernels counts; a loop body once), each with its FLOPs, bytes and matrix
// products. It is an error if the text holds no entry computation or a shape cannot be read.
func KernelsOf(hlo string) ([]Kernel, error) {
	m, err := parseKernels(hlo)
	if err != nil {
		return nil, err
	}
	types := map[*computation]map[string]string{}
	typesOf := func(c *computation) map[string]string {
		if t, ok := types[c]; ok {
			return t
		}
		t := map[string]string{}
		for _, in := range c.insts {
			t[in.name] = in.typ
		}
		types[c] = t
		return t
	}
	out := make([]Kernel, 0, len(m.kernels))
	for i, in := range m.kernels {
		t := typesOf(m.in[i])
		k := Kernel{Name: in.name, Opcode: in.opcode}
		res, err := shapesOf(in.typ)
		if err != nil {
			return nil, fmt.Errorf("hlo: kernel %s: %w", in.name, err)
		}
		for _, s := range res {
			k.Bytes += s.bytes()
		}
		if len(res) > 0 {
			k.DType = res[0].dtype
		}
		for _, op := range operandNames(in.operands) {
			s, err := shapesOf(t[op])
			if err != nil {
				return nil, fmt.Errorf("hlo: operand %s of kernel %s: %w", op, in.name, err)
			}
			for _, x := range s {
				k.Bytes += x.bytes()
			}
		}
		ops := map[string]int{}
		if in.opcode == "fusion" {
			if f := fusionRef.FindStringSubmatch(in.attrs); f != nil {
				if err := m.fusedWork(f[1], &k, ops, typesOf, map[string]bool{}); err != nil {
					return nil, fmt.Errorf("hlo: kernel %s: %w", in.name, err)
				}
			}
		} else if err := work(in, t, &k, ops); err != nil {
			return nil, fmt.Errorf("hlo: kernel %s: %w", in.name, err)
		}
		k.Class = classOf(in.opcode, ops)
		out = append(out, k)
	}
	return out, nil
}

// fusedWork adds the work of the fused computation name (and of fusions nested in it) to k.
func (m module) fusedWork(name string, k *Kernel, ops map[string]int, typesOf func(*computation) map[string]string, seen map[string]bool) error {
	c := m.byName[name]
	if c == nil || seen[name] {
		return nil
	}
	seen[name] = true
	t := typesOf(c)
	for _, in := range c.insts {
		if in.opcode == "fusion" {
			if f := fusionRef.FindStringSubmatch(in.attrs); f != nil {
				if err := m.fusedWork(f[1], k, ops, typesOf, seen); err != nil {
					return err
				}
			}
			continue
		}
		if err := work(in, t, k, ops); err != nil {
			return err
		}
	}
	return nil
}

// work adds one instruction's FLOPs and matrix products to k, and counts its opcode in ops.
func work(in instruction, types map[string]string, k *Kernel, ops map[string]int) error {
	ops[in.opcode]++
	if moves[in.opcode] || free[in.opcode] {
		return nil
	}
	res, err := shapesOf(in.typ)
	if err != nil || len(res) == 0 {
		return err
	}
	switch in.opcode {
	case "dot":
		names := operandNames(in.operands)
		if len(names) != 2 {
			return fmt.Errorf("dot %s has %d operands", in.name, len(names))
		}
		lhs, err1 := shapesOf(types[names[0]])
		rhs, err2 := shapesOf(types[names[1]])
		if err1 != nil || err2 != nil || len(lhs) != 1 || len(rhs) != 1 {
			return fmt.Errorf("dot %s: operand shapes %q, %q", in.name, types[names[0]], types[names[1]])
		}
		batch := lhs[0].product(dims(in.attrs, "lhs_batch_dims"))
		kk := lhs[0].product(dims(in.attrs, "lhs_contracting_dims"))
		d := Dot{Batch: batch, K: kk, M: lhs[0].elements() / max(batch*kk, 1), N: rhs[0].elements() / max(batch*kk, 1)}
		k.Dots = append(k.Dots, d)
		k.FLOPs += 2 * float64(d.Batch) * float64(d.M) * float64(d.N) * float64(d.K)
	case "reduce", "reduce-window", "all-reduce", "reduce-scatter":
		first := operandNames(in.operands)
		if len(first) > 0 {
			if s, err := shapesOf(types[first[0]]); err == nil && len(s) > 0 {
				k.FLOPs += float64(s[0].elements())
			}
		}
	default:
		for _, s := range res {
			k.FLOPs += float64(s.elements())
		}
	}
	return nil
}

// classOf names a kernel's class from its opcode and the opcodes it holds.
func classOf(opcode string, ops map[string]int) string {
	switch {
	case ops["dot"] > 0 || ops["convolution"] > 0:
		return ClassGEMM
	case ops["reduce"] > 0 || ops["reduce-window"] > 0:
		return ClassReduction
	case ops["gather"] > 0 || ops["scatter"] > 0 || ops["dynamic-slice"] > 0 || ops["dynamic-update-slice"] > 0:
		return ClassGather
	case opcode == "custom-call" || opcode == "sort" || opcode == "rng" || opcode == "rng-bit-generator":
		return ClassOther
	}
	arith := 0
	for op, n := range ops {
		if !moves[op] && !free[op] {
			arith += n
		}
	}
	switch {
	case arith > 0:
		return ClassElementwise
	case ops["transpose"] > 0 || ops["copy"] > 0 || ops["concatenate"] > 0 || ops["pad"] > 0 || ops["broadcast"] > 0 || ops["iota"] > 0:
		return ClassCopy
	case ops["slice"] > 0:
		return ClassGather
	}
	return ClassOther
}

// shape is one array type: "f32[512,64]".
type shape struct {
	dtype string
	dims  []int
}

func (s shape) elements() int {
	n := 1
	for _, d := range s.dims {
		n *= d
	}
	return n
}

// product multiplies the sizes of the dimensions at idx.
func (s shape) product(idx []int) int {
	n := 1
	for _, i := range idx {
		if i >= 0 && i < len(s.dims) {
			n *= s.dims[i]
		}
	}
	return n
}

func (s shape) bytes() float64 { return float64(s.elements()) * float64(dtypeBytes[s.dtype]) }

// dtypeBytes are the bytes per element of HLO's element types (token: none).
var dtypeBytes = map[string]int{
	"pred": 1, "s4": 1, "u4": 1, "s8": 1, "u8": 1, "f8e4m3fn": 1, "f8e5m2": 1, "f8e4m3": 1, "f8e5m2fnuz": 1, "f8e4m3fnuz": 1,
	"s16": 2, "u16": 2, "f16": 2, "bf16": 2, "s32": 4, "u32": 4, "f32": 4, "s64": 8, "u64": 8, "f64": 8,
	"c64": 8, "c128": 16, "token": 0,
}

var arrayType = regexp.MustCompile(`([a-z][a-z0-9]*)\[([0-9,]*)\]`)

// shapesOf reads the arrays of an HLO type ("f32[4,8]{1,0}", a tuple "(f32[4]{0}, s8[0]{0})", or
// "token[]"); an error for a type it cannot read.
func shapesOf(typ string) ([]shape, error) {
	typ = strings.TrimSpace(typ)
	if typ == "" {
		return nil, fmt.Errorf("no type")
	}
	var out []shape
	for _, m := range arrayType.FindAllStringSubmatch(typ, -1) {
		if _, ok := dtypeBytes[m[1]]; !ok {
			return nil, fmt.Errorf("unknown element type %q in %q", m[1], typ)
		}
		s := shape{dtype: m[1]}
		if m[2] != "" {
			for _, d := range strings.Split(m[2], ",") {
				n, err := strconv.Atoi(d)
				if err != nil {
					return nil, fmt.Errorf("dimension %q in %q", d, typ)
				}
				s.dims = append(s.dims, n)
			}
		}
		out = append(out, s)
	}
	if out == nil && typ != "()" {
		return nil, fmt.Errorf("cannot read the type %q", typ)
	}
	return out, nil
}

// operandNames lists the instruction names in an operand list ("%a, %b", or with types
// "f32[4]{0} %a, f32[4]{0} %b").
func operandNames(list string) []string {
	var names []string
	depth, start := 0, 0
	add := func(part string) {
		part = strings.TrimSpace(comment.ReplaceAllString(part, ""))
		if i := strings.LastIndexAny(part, " \t"); i >= 0 {
			part = part[i+1:]
		}
		if part = strings.TrimPrefix(part, "%"); part != "" {
			names = append(names, part)
		}
	}
	for i, c := range list {
		switch c {
		case '(', '{', '[':
			depth++
		case ')', '}', ']':
			depth--
		case ',':
			if depth == 0 {
				add(list[start:i])
				start = i + 1
			}
		}
	}
	add(list[start:])
	return names
}

var comment = regexp.MustCompile(`/\*.*?\*/`)

var dimsAttr = regexp.MustCompile(`([a-z_]+)=\{([0-9,]*)\}`)

// dims reads an attribute such as lhs_contracting_dims={1} from an instruction's attributes.
func dims(attrs, name string) []int {
	for _, m := range dimsAttr.FindAllStringSubmatch(attrs, -1) {
		if m[1] != name {
			continue
		}
		var out []int
		for _, d := range strings.Split(m[2], ",") {
			if n, err := strconv.Atoi(d); err == nil {
				out = append(out, n)
			}
		}
		return out
	}
	return nil
}
