//go:build linux

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// roleEnv marks the guard: the launcher starts itself again with it set.
const roleEnv = "WHYGPU_KERNEL_GUARD"

// Grace is how long processes left behind get after SIGTERM before SIGKILL.
const Grace = 2 * time.Second

const prSetChildSubreaper = 36

func run(args []string) int {
	// PR_SET_PDEATHSIG fires when the thread that started the child ends: keep this goroutine on one
	// thread for the life of the process.
	runtime.LockOSThread()
	if err := subreaper(); err != nil {
		fmt.Fprintln(os.Stderr, "whygpu-kernel: PR_SET_CHILD_SUBREAPER:", err, "(continuing without)")
	}
	if os.Getenv(roleEnv) == "1" {
		os.Unsetenv(roleEnv)
		return guard(args)
	}
	return launcher(args)
}

func subreaper() error {
	_, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// launcher is the process Jupyter starts: it runs the guard and, once the guard is gone, ends whatever
// came back to it.
func launcher(args []string) int {
	self, err := os.Executable()
	if err != nil {
		self = "/proc/self/exe"
	}
	cmd := exec.Command(self, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), roleEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	code := runForwarding(cmd, nil)
	endDescendants(Grace)
	return code
}

// guard runs GoNB and ends everything below it when GoNB ends or the launcher dies.
func guard(args []string) int {
	parent := os.Getppid()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	orphaned := func() bool { return os.Getppid() != parent }
	code := runForwarding(cmd, orphaned)
	endDescendants(Grace)
	return code
}

// runForwarding starts cmd, passes on the signals this process gets, and returns cmd's exit code. When
// orphaned reports true (checked on each signal and twice a second), the launcher is gone: the whole tree
// below is ended at once.
func runForwarding(cmd *exec.Cmd, orphaned func() bool) int {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "whygpu-kernel:", err)
		return 127
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			return exitCode(err)
		case s := <-sigs:
			if orphaned != nil && orphaned() {
				endDescendants(0)
				continue
			}
			_ = cmd.Process.Signal(s)
		case <-tick.C:
			if orphaned != nil && orphaned() {
				endDescendants(0)
			}
		}
	}
}

func exitCode(err error) int {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return exit.ExitCode()
	}
	if err != nil {
		return 1
	}
	return 0
}

// endDescendants ends every process below this one: SIGTERM, then SIGKILL once grace has passed, until none
// is left (as a subreaper, this process inherits the orphans and reaps them). It gives up after grace+5 s.
func endDescendants(grace time.Duration) {
	start := time.Now()
	for {
		kids := descendants(os.Getpid())
		reap()
		if len(kids) == 0 {
			return
		}
		sig := syscall.SIGTERM
		if time.Since(start) >= grace {
			sig = syscall.SIGKILL
		}
		for _, pid := range kids {
			_ = syscall.Kill(pid, sig)
		}
		if time.Since(start) > grace+5*time.Second {
			fmt.Fprintf(os.Stderr, "whygpu-kernel: processes %v did not end\n", kids)
			return
		}
		time.Sleep(50 * time.Millisecond)
		reap()
	}
}

// reap collects exited children without waiting.
func reap() {
	for {
		pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
	}
}

// descendants lists the live (not zombie) processes below root, read from /proc.
func descendants(root int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	zombie := map[int]bool{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		ppid, state, ok := stat(pid)
		if !ok {
			continue
		}
		children[ppid] = append(children[ppid], pid)
		zombie[pid] = state == 'Z'
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			if !zombie[c] {
				out = append(out, c)
			}
			queue = append(queue, c)
		}
	}
	return out
}

// stat reads a process's parent and state from /proc/PID/stat ("pid (comm) S ppid ...").
func stat(pid int) (ppid int, state byte, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+4 >= len(s) {
		return 0, 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, 0, false
	}
	ppid, err = strconv.Atoi(f[1])
	return ppid, f[0][0], err == nil
}
