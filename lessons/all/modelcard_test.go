package all

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
)

// lessons/AUTHORING.md carries the model card as gpumodel.CardMarkdown() renders it now, and lesson
// 08 shows it live (bigpicture.ModelCard).
func TestAuthoringHasTheModelCard(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(experiments.Root(), "lessons", "AUTHORING.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), gpumodel.CardMarkdown()) {
		t.Errorf("lessons/AUTHORING.md's model card differs from gpumodel.CardMarkdown(): paste its output between the model-card comments")
	}
	nb, err := os.ReadFile(filepath.Join(experiments.Root(), "notebooks", "08-whole-picture.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(nb), "bigpicture.ModelCard()") {
		t.Errorf("lesson 08 no longer shows the model card (bigpicture.ModelCard())")
	}
}
