package panics

import (
	"errors"
	"testing"
)

func TestCatch(t *testing.T) {
	sentinel := errors.New("out of memory")
	for _, tc := range []struct {
		name  string
		run   func() error
		want  string
		isErr error
	}{
		{"a string panic", func() (err error) {
			defer Catch(&err, "measure: %s on %s", "matmul", "xla:cpu")
			panic("bad shape")
		}, "measure: matmul on xla:cpu: bad shape", nil},
		{"an error panic stays wrapped", func() (err error) {
			defer Catch(&err, "allocating")
			panic(sentinel)
		}, "allocating: out of memory", sentinel},
		{"no what: the value alone", func() (err error) {
			defer Catch(&err, "")
			panic(42)
		}, "42", nil},
		{"no panic: the function's own error", func() (err error) {
			defer Catch(&err, "never")
			return sentinel
		}, "out of memory", sentinel},
	} {
		err := tc.run()
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
		if tc.isErr != nil && !errors.Is(err, tc.isErr) {
			t.Errorf("%s: %v does not wrap %v", tc.name, err, tc.isErr)
		}
	}
	noErr := func() (err error) {
		defer Catch(&err, "never")
		return nil
	}
	if err := noErr(); err != nil {
		t.Errorf("no panic, no error: got %v", err)
	}
}
