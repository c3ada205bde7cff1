package precision

import (
	"strings"
	"testing"
)

func TestMatMulsRefused(t *testing.T) {
	if err := (MatMuls{N: 1024, DTypes: []string{"float32", "bfloat16"}}).Validate(); err != nil {
		t.Fatalf("the cell's default matmul is refused: %v", err)
	}
	tests := []struct {
		m    MatMuls
		want string
	}{
		{MatMuls{N: 1e9, DTypes: []string{"float32"}}, "side 1000000000 refused before anything is allocated"},
		{MatMuls{N: 0, DTypes: []string{"float32"}}, "refused"},
		{MatMuls{N: 64}, "at least one"},
		{MatMuls{N: 64, DTypes: []string{"int8"}}, `"int8" refused`},
		{MatMuls{N: 64, DTypes: []string{"fp32"}}, `"fp32" refused`},
	}
	for _, tc := range tests {
		err := tc.m.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.m, err, tc.want)
		}
		if _, err := MatMulsHere(tc.m); err == nil {
			t.Errorf("MatMulsHere ran a refused matmul %+v", tc.m)
		}
	}
}
