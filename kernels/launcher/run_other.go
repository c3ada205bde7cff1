//go:build !linux

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// run starts the kernel and returns its exit code (no process-lifetime guard outside Linux).
func run(args []string) int {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "whygpu-kernel:", err)
		return 1
	}
	return 0
}
