package cgroup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fake lays out a cgroup tree under a temp dir: files maps relative paths to contents.
func fake(t *testing.T, self string, files map[string]string) {
	t.Helper()
	dir := t.TempDir()
	for p, body := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "self"), []byte(self), 0o644); err != nil {
		t.Fatal(err)
	}
	oldRoot, oldSelf := Root, procSelfCgroup
	Root, procSelfCgroup = dir, filepath.Join(dir, "self")
	t.Cleanup(func() { Root, procSelfCgroup = oldRoot, oldSelf })
}

func TestReadMemory(t *testing.T) {
	for _, tc := range []struct {
		name   string
		self   string
		files  map[string]string
		limit  uint64
		used   uint64
		source string
	}{
		{"v2 limit", "0::/kubepods/pod1\n", map[string]string{
			"kubepods/pod1/memory.max":     "4294967296\n",
			"kubepods/pod1/memory.current": "1073741824\n",
			"kubepods/pod1/memory.stat":    "anon 1\ninactive_file 73741824\n",
		}, 4 << 30, 1<<30 - 73741824, "cgroup v2 memory.max"},
		{"v2 max is no limit", "0::/\n", map[string]string{"memory.max": "max\n"}, 0, 0, ""},
		{"v2 parent is tighter", "0::/a/b\n", map[string]string{
			"a/b/memory.max": "max\n", "a/memory.max": "2147483648\n", "a/memory.current": "0\n",
		}, 2 << 30, 0, "cgroup v2 memory.max"},
		{"v1 limit", "4:memory:/docker/abc\n0::/\n", map[string]string{
			"memory/docker/abc/memory.limit_in_bytes": "1610612736\n",
			"memory/docker/abc/memory.usage_in_bytes": "100\n",
		}, 1536 << 20, 100, "cgroup v1 memory.limit_in_bytes"},
		{"v1 unlimited", "4:memory:/\n", map[string]string{
			"memory/memory.limit_in_bytes": "9223372036854771712\n",
		}, 0, 0, ""},
		{"v1 container sees its cgroup at the mount", "4:memory:/docker/abc\n", map[string]string{
			"memory/memory.limit_in_bytes": "1073741824\n", "memory/memory.usage_in_bytes": "0\n",
		}, 1 << 30, 0, "cgroup v1 memory.limit_in_bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake(t, tc.self, tc.files)
			m := ReadMemory()
			if m.Limit != tc.limit || m.Used != tc.used || m.Source != tc.source {
				t.Errorf("ReadMemory() = %+v, want limit %d used %d source %q", m, tc.limit, tc.used, tc.source)
			}
			if tc.limit != 0 && !strings.Contains(m.String(), "container limit") {
				t.Errorf("String() = %q", m)
			}
		})
	}
}

func TestOOMKillsAndCPU(t *testing.T) {
	fake(t, "0::/seat\n", map[string]string{
		"seat/memory.events": "low 0\nhigh 0\nmax 3\noom 2\noom_kill 2\n",
		"seat/cpu.stat":      "usage_usec 100\nnr_periods 10\nnr_throttled 4\nthrottled_usec 2500\n",
	})
	if n, where, ok := OOMKills(); !ok || n != 2 || where != "cgroup v2 memory.events" {
		t.Errorf("OOMKills() = %d, %q, %v", n, where, ok)
	}
	c, ok := ReadCPU()
	if !ok || c.Periods != 10 || c.Throttled != 4 || c.ThrottledMicro != 2500 {
		t.Errorf("ReadCPU() = %+v, %v", c, ok)
	}
	if d := c.Sub(CPU{Periods: 4, Throttled: 4, ThrottledMicro: 500}); d.Periods != 6 || d.Throttled != 0 || d.ThrottledMicro != 2000 {
		t.Errorf("Sub = %+v", d)
	}
}
