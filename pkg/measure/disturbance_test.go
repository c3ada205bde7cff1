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
	busy := exec.Command(os.Args[0], "-test.run=^$")
	busy.Env = append(os.Environ(), "WHYGPU_TEST_HELPER=busy")
	if err := busy.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = busy.Process.Kill(); _ = busy.Wait() }()
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
		busy := exec.Command(os.Args[0], "-test.run=^$")
		busy.Env = append(os.Environ(), "WHYGPU_TEST_HELPER=busy")
		if err := busy.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = busy.Process.Kill(); _ = busy.Wait() }()
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
