package hlo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gomlx/go-xla/pjrt"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/gpu-course/whygpu/pkg/support/panics"
	"github.com/gpu-course/whygpu/pkg/support/units"
)

// DumpPrefix starts the name of every executable XLA dumps (see [DumpName]).
const DumpPrefix = "whygpu_dump_"

var (
	dumpDir   string // where XLA writes its dumps, "" if someone else's XLA_FLAGS already chose
	dumpNote  string // why dumps may be missing, for error messages
	dumpCount atomic.Int64
	dumpMu    sync.Mutex
)

// originalFlags is XLA_FLAGS as the process was started with it (hadFlags: set at all), read before
// init adds the dump flags.
var originalFlags, hadFlags = os.LookupEnv("XLA_FLAGS")

func init() { dumpDir, dumpNote = setFlags() }

// AddedFlags is what this package added to XLA_FLAGS for this process ("" when XLA_FLAGS already
// chose a dump directory, or setting it failed).
func AddedFlags() string {
	if now := os.Getenv("XLA_FLAGS"); now != originalFlags {
		return strings.TrimSpace(strings.TrimPrefix(now, originalFlags))
	}
	return ""
}

// PeerEnv is os.Environ() with XLA_FLAGS as the process was started with it (unset if it was not
// set): the environment for a child process that must not inherit this package's dump flags.
func PeerEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "XLA_FLAGS=") {
			env = append(env, kv)
		}
	}
	if hadFlags {
		env = append(env, "XLA_FLAGS="+originalFlags)
	}
	return env
}

var dumpToFlag = regexp.MustCompile(`--xla_dump_to=(\S+)`)

// setFlags adds the dump flags to XLA_FLAGS unless they are already there.
func setFlags() (dir, note string) {
	flags := os.Getenv("XLA_FLAGS")
	if m := dumpToFlag.FindStringSubmatch(flags); m != nil {
		return m[1], "XLA_FLAGS already sets --xla_dump_to=" + m[1] + "; its module filter, if any, must let " + DumpPrefix + "* through"
	}
	dir = filepath.Join(os.TempDir(), fmt.Sprintf("whygpu-xla-%d", os.Getpid()))
	flags = strings.TrimSpace(flags + " --xla_dump_to=" + dir + " --xla_dump_hlo_module_re=^" + DumpPrefix)
	if err := os.Setenv("XLA_FLAGS", flags); err != nil {
		return "", "cannot set XLA_FLAGS: " + err.Error()
	}
	return dir, "XLA reads XLA_FLAGS once, when the first backend of the process opens: pkg/measure/hlo must be imported by the program that opens it"
}

// DumpDir is the directory XLA dumps the executables named with DumpName into.
func DumpDir() string { return dumpDir }

// DumpName returns a unique executable name, DumpPrefix + name + a counter, that XLA will dump.
func DumpName(name string) string {
	return fmt.Sprintf("%s%s_n%d", DumpPrefix, sanitize(name), dumpCount.Add(1))
}

// Dumped renames e (before its first compile) so that XLA dumps the optimized HLO it compiles.
func Dumped(e *graph.Exec) *graph.Exec { return e.WithName(DumpName(e.Name())) }

var nonIdent = regexp.MustCompile(`[^A-Za-z0-9_]+`)

func sanitize(s string) string { return nonIdent.ReplaceAllString(s, "_") }

// Memory is what XLA planned for one execution on the device, in bytes (PJRT's compiled memory
// statistics). Arguments and outputs are the executable's inputs and results; Aliases are output
// bytes that reuse donated input buffers; Temporary is scratch space the program needs while it
// runs (intermediate values that are not outputs, e.g. activations kept for the backward pass);
// GeneratedCode is the size of the compiled code where the device keeps it (0 on the CPU).
type Memory struct {
	Arguments, Outputs, Aliases, Temporary, GeneratedCode int64
	// Host is the same split for buffers the executable keeps in host memory (0 unless the
	// program offloads to the host).
	Host struct{ Arguments, Outputs, Aliases, Temporary, GeneratedCode int64 }
}

// Total is the device memory one execution needs at its peak: arguments + outputs − aliases +
// temporaries + code.
func (m Memory) Total() int64 {
	return m.Arguments + m.Outputs - m.Aliases + m.Temporary + m.GeneratedCode
}

// String is one line: "arguments 4 MiB, outputs 4 MiB, aliased 0 B, temporaries 0 B → 8 MiB".
func (m Memory) String() string {
	return fmt.Sprintf("arguments %s, outputs %s, aliased %s, temporaries %s → %s",
		bytes(m.Arguments), bytes(m.Outputs), bytes(m.Aliases), bytes(m.Temporary), bytes(m.Total()))
}

func bytes(b int64) string { return units.Bytes(float64(b)) }

// ErrNotXLA is returned for a graph compiled by a backend other than XLA (GoMLX's Go backend has
// no HLO and no compiled memory statistics).
var ErrNotXLA = errors.New("hlo: not an XLA executable (only the XLA backends compile HLO)")

var loadedType = reflect.TypeOf((*pjrt.LoadedExecutable)(nil))

// loaded finds the *pjrt.LoadedExecutable inside the backend's executable of a compiled graph.
func loaded(g *graph.Graph) (*pjrt.LoadedExecutable, error) {
	if g == nil {
		return nil, errors.New("hlo: nil graph")
	}
	ex := g.Executable()
	if ex == nil {
		return nil, fmt.Errorf("hlo: graph %s is not compiled yet", g.Name())
	}
	v := reflect.ValueOf(ex)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil, ErrNotXLA
	}
	s := v.Elem()
	for i := range s.NumField() {
		f := s.Field(i)
		if f.Type() == loadedType {
			le := reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Interface().(*pjrt.LoadedExecutable)
			if le == nil {
				return nil, fmt.Errorf("hlo: executable of %s was finalized", g.Name())
			}
			return le, nil
		}
	}
	if strings.Contains(s.Type().PkgPath(), "go-xla") {
		return nil, fmt.Errorf("hlo: %s holds no *pjrt.LoadedExecutable field: go-xla changed its layout, update pkg/measure/hlo", s.Type())
	}
	return nil, ErrNotXLA
}

// MemoryOf returns XLA's compiled memory figures for a compiled graph (from
// graph.Exec.CallWithGraphOnDevice, or Graph.Compile).
func MemoryOf(g *graph.Graph) (Memory, error) {
	le, err := loaded(g)
	if err != nil {
		return Memory{}, err
	}
	d, h := le.OnDeviceMemoryUsageStats, le.OnHostMemoryUsageStats
	m := Memory{Arguments: d.Inputs, Outputs: d.Outputs, Aliases: d.Aliases, Temporary: d.Temporary, GeneratedCode: d.GeneratedCode}
	m.Host.Arguments, m.Host.Outputs, m.Host.Aliases, m.Host.Temporary, m.Host.GeneratedCode =
		h.Inputs, h.Outputs, h.Aliases, h.Temporary, h.GeneratedCode
	return m, nil
}

// Report is what XLA compiled for one graph.
type Report struct {
	Name    string  // the executable's name
	HLO     string  // optimized HLO text; "" when the graph was not named with DumpName
	Kernels Kernels // counted from HLO (zero when HLO is "")
	Memory  Memory
}

// String is one line: name, kernels, memory.
func (r Report) String() string {
	k := "HLO not dumped"
	if r.HLO != "" {
		k = r.Kernels.String()
	}
	return fmt.Sprintf("%s: %s; %s", r.Name, k, r.Memory)
}

// Of reports on a compiled graph: its memory figures always, its optimized HLO and kernel count
// when it was named with DumpName (the dump files are removed once read).
func Of(g *graph.Graph) (Report, error) {
	mem, err := MemoryOf(g)
	if err != nil {
		return Report{}, err
	}
	r := Report{Name: g.Name(), Memory: mem}
	if !strings.HasPrefix(g.Name(), DumpPrefix) {
		return r, nil
	}
	text, err := readDump(g.Name())
	if err != nil {
		return r, err
	}
	r.HLO = text
	r.Kernels, err = CountKernels(text)
	return r, err
}

// Inspect compiles e for args (renaming it with Dumped first if it was not compiled yet), runs it
// once on the default device, frees the outputs, and reports what XLA compiled.
func Inspect(e *graph.Exec, args ...any) (r Report, err error) {
	if !strings.HasPrefix(e.Name(), DumpPrefix) {
		Dumped(e)
	}
	defer panics.Catch(&err, "hlo: running %s", e.Name())
	outs, g, err := e.CallWithGraphOnDevice(0, args...)
	if err != nil {
		return Report{}, fmt.Errorf("hlo: running %s: %w", e.Name(), err)
	}
	for _, o := range outs {
		freeTensor(o)
	}
	return Of(g)
}

func freeTensor(t *tensors.Tensor) {
	if t != nil {
		_ = t.FinalizeAll()
	}
}

// readDump reads (and removes) the optimized HLO XLA dumped for the executable of graph name.
func readDump(name string) (string, error) {
	const hlo = "after_optimizations.txt"
	files, err := readDumpFiles(name, hlo)
	return files[hlo], err
}

// readDumpFiles reads the files XLA dumped for the executable of graph name whose names end with
// each suffix, removes every dump file of that executable, and returns the texts by suffix. It is
// an error if one of the suffixes has no file.
func readDumpFiles(name string, suffixes ...string) (map[string]string, error) {
	if dumpDir == "" {
		return nil, fmt.Errorf("hlo: no dump directory: %s", dumpNote)
	}
	dumpMu.Lock()
	defer dumpMu.Unlock()
	module := sanitize(name) // XLA turns "name#1" into module "name_1"
	all, err := filepath.Glob(filepath.Join(dumpDir, "module_*."+module+"*"))
	if err != nil { // only a malformed pattern: a name sanitize let through
		return nil, fmt.Errorf("hlo: finding XLA's dump of %q: %w", name, err)
	}
	var mine []string
	for _, f := range all {
		// the module name is followed by "_<n>." or "."; "whygpu_dump_x_n1" must not match "…_n12".
		rest := strings.TrimPrefix(filepath.Base(f)[strings.Index(filepath.Base(f), ".")+1:], module)
		if strings.HasPrefix(rest, ".") || strings.HasPrefix(rest, "_") {
			mine = append(mine, f)
		}
	}
	texts := map[string]string{}
	for _, f := range mine {
		for _, suffix := range suffixes {
			if strings.HasSuffix(f, suffix) && err == nil {
				b, rerr := os.ReadFile(f)
				if rerr != nil {
					err = fmt.Errorf("hlo: reading XLA's dump: %w", rerr)
				}
				texts[suffix] = string(b)
			}
		}
	}
	for _, f := range mine {
		_ = os.Remove(f)
	}
	_ = os.Remove(dumpDir) // only if empty
	if err != nil {
		return nil, err
	}
	for _, suffix := range suffixes {
		if texts[suffix] == "" {
			return nil, fmt.Errorf("hlo: XLA wrote no %s for %s in %s (%s)", suffix, name, dumpDir, dumpNote)
		}
	}
	return texts, nil
}
