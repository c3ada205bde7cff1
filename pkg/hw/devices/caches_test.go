package devices

import (
	"os"
	"path/filepath"
	"testing"
)

func TestReadCaches(t *testing.T) {
	dir := t.TempDir()
	write := func(idx, level, typ, size, shared string) {
		d := filepath.Join(dir, idx)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, v := range map[string]string{"level": level, "type": typ, "size": size, "shared_cpu_list": shared} {
			if err := os.WriteFile(filepath.Join(d, name), []byte(v+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	write("index3", "3", "Unified", "32768K", "0-1")
	write("index0", "1", "Data", "32K", "0")
	write("index1", "1", "Instruction", "32K", "0")
	write("index2", "2", "Unified", "1024K", "0")
	cs, err := readCaches(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"L1d 32 KiB per core", "L2 1 MiB per core", "L3 32 MiB shared by 2 CPUs"}
	if len(cs) != len(want) {
		t.Fatalf("got %v", cs)
	}
	for i, c := range cs {
		if c.String() != want[i] {
			t.Errorf("cache %d: %q, want %q", i, c, want[i])
		}
	}
	if _, err := readCaches(t.TempDir()); err == nil {
		t.Error("an empty directory must be an error")
	}
}

func TestParseCacheSizeAndCPUs(t *testing.T) {
	sizes := []struct {
		in   string
		want int64
	}{{"32K", 32 << 10}, {"8M", 8 << 20}, {"512", 512}, {"1G", 1 << 30}}
	for _, tc := range sizes {
		if got, err := parseCacheSize(tc.in); err != nil || got != tc.want {
			t.Errorf("parseCacheSize(%q) = %d, %v", tc.in, got, err)
		}
	}
	for _, bad := range []string{"", "K", "-4K", "lots"} {
		if _, err := parseCacheSize(bad); err == nil {
			t.Errorf("parseCacheSize(%q): want an error", bad)
		}
	}
	cpus := []struct {
		in   string
		want int
	}{{"0", 1}, {"0-1", 2}, {"0-3,8-11", 8}, {"", 1}}
	for _, tc := range cpus {
		if got := countCPUs(tc.in); got != tc.want {
			t.Errorf("countCPUs(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}
