package memory

import (
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/pkg/controls"
	"github.com/gpu-course/whygpu/pkg/memsize"
)

func TestSizingView(t *testing.T) {
	for _, p := range memsize.Presets() {
		form := SizingForm(p.Name)
		vals := controls.Starting(form)
		if err := controls.Check(form, vals); err != nil {
			t.Fatalf("%s: the form's starting values are refused: %v", p.Name, err)
		}
		v := SizingView(vals)
		if v.Err != nil || v.Plot == nil || !strings.Contains(v.Fold, "Ψ") || !strings.Contains(v.Caption, "formula") {
			t.Errorf("%s: view %+v", p.Name, v)
		}
		if v.Set["layers"] != vals["layers"] {
			t.Errorf("%s: the preset sends layers %q back, the form starts at %q", p.Name, v.Set["layers"], vals["layers"])
		}
		if !strings.Contains(v.Plot.Title.Text, "computed from the formula") {
			t.Errorf("%s: chart title %q does not say where its numbers come from", p.Name, v.Plot.Title.Text)
		}
	}
	// custom: the controls' values, a refusal shown as the view's error, the form kept
	vals := controls.Starting(SizingForm("GPT-2 small"))
	vals["preset"], vals["heads"] = Custom, "7"
	if v := SizingView(vals); v.Err == nil || !strings.Contains(v.Err.Error(), "multiple") || v.Set != nil {
		t.Errorf("heads 7 of width 768: %+v", v)
	}
	vals["heads"], vals["batch"], vals["zero"], vals["dp"] = "12", "64", "3", "8"
	v := SizingView(vals)
	if v.Err != nil || !strings.Contains(v.Caption, "custom, b=64") {
		t.Errorf("custom GPT-2 at micro-batch 64: %+v", v)
	}
	if s := SettingOf(vals); s.ZeRO != 3 || s.DP != 8 || s.Precision != memsize.BF16Mixed {
		t.Errorf("SettingOf read %+v", s)
	}
}
