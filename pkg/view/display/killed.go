package display

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/janpfeifer/gonb/gonbui"

	"github.com/gpu-course/whygpu/pkg/hw/cgroup"
)

// When a cell's program is killed for memory (the kernel's out-of-memory killer sends SIGKILL), GoNB
// prints only "signal: killed" and the kernel lives on. The next cell that loads this package then says
// what most likely happened: each course cell records, at start, how many processes the kernel had
// killed for memory (the container's cgroup counter, else the machine's); a later cell that finds the
// count grown explains it.

// cellsStateFile is where the cells of one kernel (one GoNB process, the cells' parent) leave the count:
// named by the parent's pid and start time, so a later process that reuses the pid never reads it.
func cellsStateFile() string {
	ppid := os.Getppid()
	start := ""
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", ppid)); err == nil {
		if i := strings.LastIndexByte(string(b), ')'); i >= 0 {
			if f := strings.Fields(string(b)[i+1:]); len(f) > 19 {
				start = "-" + f[19] // starttime, in clock ticks since boot
			}
		}
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("whygpu-cells-%d%s.json", ppid, start))
}

type cellsState struct {
	OOMKills uint64 `json:"oom_kills"`
	Counter  string `json:"counter"`
	Pid      int    `json:"pid"`
}

func init() {
	if gonbui.IsNotebook {
		if note := checkKilledForMemory(cellsStateFile()); note != "" {
			fmt.Println(note)
		}
	}
}

// checkKilledForMemory compares the out-of-memory kill count with the one the previous cell saw at its
// start, records the current one in state, and returns the learner's note when it grew ("" otherwise).
func checkKilledForMemory(state string) string {
	n, counter, ok := cgroup.OOMKills()
	if !ok {
		return ""
	}
	var prev cellsState
	b, err := os.ReadFile(state)
	seen := err == nil && json.Unmarshal(b, &prev) == nil && prev.Counter == counter
	if b, err := json.Marshal(cellsState{OOMKills: n, Counter: counter, Pid: os.Getpid()}); err == nil {
		_ = os.WriteFile(state, b, 0o600)
	}
	if !seen || n <= prev.OOMKills {
		return ""
	}
	return KilledForMemoryNote(n-prev.OOMKills, counter, cgroup.ReadMemory())
}

// KilledForMemoryNote is what the learner reads after a cell was killed for memory: kills processes were
// killed since the previous cell started (counted by counter), under limit.
func KilledForMemoryNote(kills uint64, counter string, limit cgroup.Memory) string {
	where := "on this machine"
	if counter != "/proc/vmstat" {
		where = "in this container"
	}
	lim := "the machine's RAM"
	if limit.Limit != 0 {
		lim = limit.String()
	}
	return fmt.Sprintf("Note: the previous cell's program was most likely killed for running out of memory: "+
		"the kernel's out-of-memory killer ended %d process(es) %s since it started (%s), and GoNB showed "+
		"\"signal: killed\". The limit is %s. Lower what that cell sized (the batch, the matrix or model "+
		"size, or the number of points) and run it again, or ask for a larger memory limit. The kernel "+
		"is still running; cells before it are kept.", kills, where, counter, lim)
}
