package controls

import "testing"

func TestCheck(t *testing.T) {
	form := []Control{
		{Name: "p", Label: "precision", Options: []string{"fp32", "bf16"}, Value: "fp32"},
		{Name: "b", Label: "batch", Min: 1, Max: 8, Value: "4"},
	}
	if err := Check(form, Starting(form)); err != nil {
		t.Fatalf("starting values refused: %v", err)
	}
	for _, c := range []struct {
		v    Values
		fail bool
	}{
		{Values{"p": "bf16", "b": "8"}, false},
		{Values{"p": "fp16", "b": "8"}, true},
		{Values{"p": "fp32", "b": "9"}, true},
		{Values{"p": "fp32", "b": "x"}, true},
		{Values{"p": "fp32"}, true},
	} {
		if err := Check(form, c.v); (err != nil) != c.fail {
			t.Errorf("%v: error %v, want failure %v", c.v, err, c.fail)
		}
	}
	if (Values{"b": "7"}).Int("b") != 7 {
		t.Error("Int")
	}
}
