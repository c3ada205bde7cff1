package measure

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/pkg/measure/results"
)

// runHelper runs, in a helper process, a busy loop (a competing program) or a measurement inside a
// CPU-limited cgroup; TestMain calls it first.
func runHelper() {
	switch os.Getenv("WHYGPU_TEST_HELPER") {
	case "busy":
		for end := time.Now().Add(3 * time.Second); time.Now().Before(end); {
		}
		os.Exit(0)
	case "throttled":
		// enter the cgroup first, then time a busy loop there
		if err := os.WriteFile(filepath.Join(os.Getenv("WHYGPU_TEST_CGROUP"), "cgroup.procs"), []byte(fmt.Sprint(os.Getpid())), 0o644); err != nil {
			fmt.Println(err)
			os.Exit(3)
		}
		st, _, _ := Time(func() error {
			for end := time.Now().Add(20 * time.Millisecond); time.Now().Before(end); {
			}
			return nil
		}, Options{Warmup: 1, Reps: 10})
		b, _ := json.Marshal(st.Disturbance)
		fmt.Println(string(b))
		os.Exit(0)
	}
}

// A real competing process (a busy loop in another process) is counted and marks the measurement.
func TestProbeSeesACompetingProcess(t *testing.T) {
	startBusy(t)
	time.Sleep(100 * time.Millisecond)
	p := StartProbe()
	time.Sleep(time.Second) // this process does nothing: the CPU used is the neighbour's
	d := p.Stop()
	if !d.Counted || !d.Disturbed() || d.OthersCores < 0.3 {
		t.Fatalf("with a busy loop in another process: %+v (disturbed %v), want ≥ 0.3 cores of others", d, d.Disturbed())
	}
	if !strings.Contains(d.Advice(), "rerun when the machine is quiet") {
		t.Errorf("Advice() = %q", d.Advice())
	}
	// someone is named (the busy loop, unless a busier neighbour of a shared machine outran it)
	if runtime.GOOS == "linux" && !strings.Contains(d.Advice(), "(mostly ") {
		t.Errorf("Advice() = %q does not name who used the CPU", d.Advice())
	}
}

// topOthers: this process left out, names added up, a reaped child's time before the window not
// charged to its parent, a process born meanwhile charged in full, at most three.
func TestTopOthers(t *testing.T) {
	self := os.Getpid()
	before := map[int]procCPU{
		self: {name: "me", own: 1},
		10:   {name: "gopls", own: 5},
		11:   {name: "go", ppid: 10, own: 30}, // ends meanwhile after 0.2 s more
		12:   {name: "idle", own: 9},
		13:   {name: "kworker/0:1-a", own: 1},
	}
	after := map[int]procCPU{
		self: {name: "me", own: 9},
		10:   {name: "gopls", own: 5.5, children: 30.2},
		12:   {name: "idle", own: 9.01},
		13:   {name: "kworker/0:1-b", own: 1.3},
		20:   {name: "go", own: 0.4},
		21:   {name: "go", own: 0.2},
		22:   {name: "cc1", own: 0.1},
	}
	if got, want := topOthers(before, after, 1), "gopls 70%, go 60%, kworker/0:1-b 30%"; got != want {
		t.Errorf("topOthers = %q, want %q", got, want)
	}
	// this process's parent (the kernel, in a notebook) and what it started are marked as the kernel's
	kernel := os.Getppid()
	before[kernel] = procCPU{name: "gonb", own: 1}
	after[kernel] = procCPU{name: "gonb", own: 1.1}
	g := after[10]
	g.ppid = kernel
	after[10] = g
	after[20] = procCPU{name: "go", ppid: 10, own: 0.4}
	if got, want := topOthers(before, after, 1), "gopls (this kernel) 70%, go (this kernel) 40%, kworker/0:1-b 30%"; got != want {
		t.Errorf("topOthers = %q, want %q", got, want)
	}
}

func TestParseStat(t *testing.T) {
	pc, ok := parseStat("4242 (go build) R 1 2 3 4 5 6 7 8 9 10 150 50 20 30 20 0 1 0 100 0 0")
	if !ok || pc.name != "go build" || pc.ppid != 1 || pc.own != 2 || pc.children != 0.5 {
		t.Errorf("parseStat = %+v, %v; want go build, 2.5 s", pc, ok)
	}
	if _, ok := parseStat("garbage"); ok {
		t.Error("parseStat accepted garbage")
	}
}

// In a seat pinned to some CPUs (a cpuset), the probe counts only those: busy neighbours on the
// machine's other CPUs are not this seat's disturbance, and a seat of one CPU never sees more than one
// core of others. Two busy loops fill this machine's CPUs; counted on CPU 0 alone they are at most 1 core,
// counted on every CPU they are more.
func TestProbeCountsOnlyTheSeatsCPUs(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Fatalf("needs 2 CPUs, this machine has %d", runtime.NumCPU())
	}
	for range 2 {
		startBusy(t)
	}
	time.Sleep(100 * time.Millisecond)
	old := seatCPUs
	t.Cleanup(func() { seatCPUs = old })
	seatCPUs = func() []int { return []int{0} }
	p := StartProbe()
	seatCPUs = func() []int { return nil }
	all := StartProbe()
	time.Sleep(time.Second)
	dAll := all.Stop()
	seatCPUs = func() []int { return []int{0} }
	d := p.Stop()
	if !d.Counted || d.CPUs != 1 || d.OthersCores > 1.05 {
		t.Errorf("counted on CPU 0: %+v, want 1 CPU and at most one core of others", d)
	}
	if !dAll.Counted || dAll.CPUs != runtime.NumCPU() || dAll.OthersCores < 1.3 {
		t.Errorf("counted on every CPU with two busy loops: %+v, want more than 1.3 cores of others", dAll)
	}
	if pct := d.OthersPercent(); pct > 105 {
		t.Errorf("OthersPercent on one CPU = %.0f%%", pct)
	}
}

// A measurement inside a cgroup with a CPU quota of 10% of a core is throttled, counted and marked.
func TestProbeSeesCgroupThrottling(t *testing.T) {
	base := "/sys/fs/cgroup/cpu"
	quota := "cpu.cfs_quota_us"
	dir := filepath.Join(base, fmt.Sprintf("whygpu-test-%d", os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("cannot create a CPU cgroup here (%v): throttling is tested where one can be made", err)
	}
	defer func() {
		for i := 0; i < 50 && os.Remove(dir) != nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
	}()
	if err := os.WriteFile(filepath.Join(dir, quota), []byte("10000"), 0o644); err != nil {
		t.Skipf("cannot set a CPU quota: %v", err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "WHYGPU_TEST_HELPER=throttled", "WHYGPU_TEST_CGROUP="+dir)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper: %v: %s", err, out)
	}
	var d results.Disturbance
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatalf("helper printed %q: %v", out, err)
	}
	if d.Throttled == 0 || !d.Disturbed() || !strings.Contains(d.Advice(), "CPU quota") {
		t.Fatalf("inside a 10%% CPU quota: %+v, want throttled periods and a disturbed mark", d)
	}
}

// startBusy starts a competing process (this test binary as a busy loop, WHYGPU_TEST_HELPER=busy),
// stopped when the test ends.
func startBusy(t *testing.T) {
	t.Helper()
	busy := exec.Command(os.Args[0], "-test.run=^$")
	busy.Env = append(os.Environ(), "WHYGPU_TEST_HELPER=busy")
	if err := busy.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = busy.Process.Kill(); _ = busy.Wait() })
}
