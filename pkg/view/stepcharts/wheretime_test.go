package stepcharts

import (
	"errors"
	"testing"

	"github.com/gpu-course/whygpu/internal/devicetest"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
	"github.com/gpu-course/whygpu/pkg/view/charts"
)

// The "where the time would go" chart draws a modeled step (its table is gpumodel.WhereTimeGoes,
// tested there) and refuses an estimate without kernels.
func TestWhereTime(t *testing.T) {
	devicetest.NeedCPUPlugin(t)
	t.Setenv("WHYGPU_CACHE", t.TempDir())
	if _, err := WhereTime(gpumodel.StepEstimate(experiments.CourseMLP(1, 16))); err != nil {
		t.Error(err)
	}
	if _, err := WhereTime(gpumodel.Estimate{}); !errors.Is(err, charts.ErrNoData) {
		t.Errorf("no kernels: %v, want ErrNoData", err)
	}
}
