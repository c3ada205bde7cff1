package nvml

import (
	"os"
	"testing"
)

// TestWithoutOrWithADriver: on a machine without NVIDIA's library every call says so in an error,
// never a crash; with one (a GPU machine), every GPU has a name, its memory and a utilization.
func TestWithoutOrWithADriver(t *testing.T) {
	_, statErr := os.Stat("/proc/driver/nvidia/version")
	if !Init() {
		if statErr == nil {
			t.Fatal("an NVIDIA driver is loaded (/proc/driver/nvidia/version) but NVML did not initialize")
		}
		if _, err := Count(); err == nil {
			t.Error("Count without NVML: no error")
		}
		return
	}
	n, err := Count()
	if err != nil {
		t.Fatal(err)
	}
	driver, err := DriverVersion()
	if err != nil || driver == "" {
		t.Errorf("driver version %q: %v", driver, err)
	}
	for i := range n {
		name, err := Name(i)
		total, used, merr := Memory(i)
		u, uerr := Utilization(i)
		t.Logf("GPU %d: %s, %d of %d bytes used, %d%% busy, driver %s", i, name, used, total, u, driver)
		if err != nil || name == "" || merr != nil || total == 0 || used > total || uerr != nil || u > 100 {
			t.Errorf("GPU %d: name %q (%v), memory %d/%d (%v), utilization %d (%v)", i, name, err, used, total, merr, u, uerr)
		}
	}
}
