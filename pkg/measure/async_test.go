package measure

import (
	"testing"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

func TestTimeWithoutWaitingLies(t *testing.T) {
	dev := openDevice(t, devices.CPU)
	u, err := TimeWithoutWaiting(dev, workloads.Square(512, dtypes.Float32), Options{Warmup: 1, Reps: 10})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + u.String())
	if u.Launch.Stats.N != 10 || u.Synced.Stats.N != 10 {
		t.Fatalf("N = %d and %d, want 10", u.Launch.Stats.N, u.Synced.Stats.N)
	}
	// A 512³ matmul takes about a millisecond; a launch takes microseconds.
	if !(u.Launch.Stats.Median*10 < u.Synced.Stats.Median) {
		t.Errorf("launch median %v is not far below the completion median %v", u.Launch.Stats.Median, u.Synced.Stats.Median)
	}
	if u.Launch.GFLOPS() <= u.Synced.GFLOPS() {
		t.Error("the launch-only timing should report (impossibly) higher FLOP/s")
	}
}
