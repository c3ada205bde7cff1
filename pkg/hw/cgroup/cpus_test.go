package cgroup

import (
	"slices"
	"testing"
)

func TestReadCPULimit(t *testing.T) {
	for _, tc := range []struct {
		name     string
		self     string
		files    map[string]string
		affinity []int
		cpus     []int
		quota    float64
		cores    int // Cores(32)
	}{
		{"v2 cpuset of a docker seat", "0::/system.slice/docker-abc.scope\n", map[string]string{
			"system.slice/docker-abc.scope/cpuset.cpus.effective": "2-3\n",
			"system.slice/docker-abc.scope/cpu.max":               "max 100000\n",
		}, []int{2, 3}, []int{2, 3}, 0, 2},
		{"v2 quota only: every host core visible", "0::/kubepods/pod1\n", map[string]string{
			"kubepods/pod1/cpu.max": "200000 100000\n",
		}, seq(32), seq(32), 2, 2},
		{"v2 parent quota is tighter", "0::/a/b\n", map[string]string{
			"a/b/cpu.max": "400000 100000\n", "a/cpu.max": "150000 100000\n",
		}, seq(32), seq(32), 1.5, 1},
		{"v2 quota under one core still runs a thread", "0::/\n", map[string]string{
			"cpu.max": "50000 100000\n",
		}, seq(4), seq(4), 0.5, 1},
		{"v1 cpuset and quota", "3:cpuset:/docker/abc\n1:cpu,cpuacct:/docker/abc\n", map[string]string{
			"cpuset/docker/abc/cpuset.effective_cpus":  "4-7\n",
			"cpu,cpuacct/docker/abc/cpu.cfs_quota_us":  "300000\n",
			"cpu,cpuacct/docker/abc/cpu.cfs_period_us": "100000\n",
		}, []int{4, 5, 6, 7}, []int{4, 5, 6, 7}, 3, 3},
		{"v1 no quota (-1)", "1:cpu:/\n", map[string]string{
			"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n",
		}, seq(8), seq(8), 0, 8},
		{"affinity narrower than the cpuset (taskset)", "0::/\n", map[string]string{
			"cpuset.cpus.effective": "0-7\n",
		}, []int{1}, []int{1}, 0, 1},
		{"nothing readable", "", nil, nil, nil, 0, 32},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake(t, tc.self, tc.files)
			old := affinity
			affinity = func() []int { return tc.affinity }
			t.Cleanup(func() { affinity = old })
			l := ReadCPULimit()
			if !slices.Equal(l.CPUs, tc.cpus) || l.Quota != tc.quota {
				t.Errorf("ReadCPULimit = %+v, want cpus %v quota %v", l, tc.cpus, tc.quota)
			}
			if got := l.Cores(32); got != tc.cores {
				t.Errorf("Cores(32) = %d, want %d (%s)", got, tc.cores, l)
			}
		})
	}
}

func TestParseAndFormatCPUList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		cpus []int
		out  string
	}{
		{"0-3,8,10-11\n", []int{0, 1, 2, 3, 8, 10, 11}, "0-3,8,10-11"},
		{"5", []int{5}, "5"},
		{"3,1,2,2", []int{1, 2, 3}, "1-3"},
		{"", nil, ""},
	} {
		got, err := ParseCPUList(tc.in)
		if err != nil || !slices.Equal(got, tc.cpus) {
			t.Errorf("ParseCPUList(%q) = %v, %v; want %v", tc.in, got, err, tc.cpus)
		}
		if s := FormatCPUList(got); s != tc.out {
			t.Errorf("FormatCPUList(%v) = %q, want %q", got, s, tc.out)
		}
	}
	for _, bad := range []string{"3-1", "a", "-1", "1-b"} {
		if _, err := ParseCPUList(bad); err == nil {
			t.Errorf("ParseCPUList(%q): no error", bad)
		}
	}
}

// The real machine: whatever its cgroup says, Cores never exceeds the CPUs this process may run on.
func TestReadCPULimitHere(t *testing.T) {
	l := ReadCPULimit()
	if n := l.Cores(1 << 10); len(l.CPUs) > 0 && n > len(l.CPUs) {
		t.Errorf("Cores %d > %d CPUs (%s)", n, len(l.CPUs), l)
	}
	t.Log(l)
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
