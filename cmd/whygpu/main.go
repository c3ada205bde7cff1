// Command whygpu is the course's command-line tool.
//
//	whygpu doctor          what is installed, and the exact fix for each missing piece
//
// The other subcommands are listed in commands; each has a file of its own.
package main

import (
	"fmt"
	"os"
	"sort"
)

// command is one subcommand.
type command struct {
	summary string
	run     func(args []string) error
}

// commands are the subcommands by name, each run by the function of its own file (bench.go,
// check.go, …); each parses its flags with its own flag.FlagSet.
var commands = map[string]command{
	"bench":   {"GoMLX xla:cpu vs JAX (and numpy, the Go backend) on the same shapes, interleaved: per-call latency, MLP step, GFLOP/s, GB/s; -cells: cell latency through the course kernel", runBench},
	"check":   {"lint notebooks: kernel, stripped outputs, objectives, recall checks, recap, problems, gofmt, imports", check},
	"compare": {"GoMLX on a device vs PyTorch's numbers for the same shapes (scripts/torch_compare.py)", compare},
	"doctor":  {"print what is installed and, for each missing piece, the fix", doctor},
	"new":     {"scaffold a lesson: notebook, lessons/<pkg>/ package with a test, experiment stub", newLesson},
	"perfdoc": {"render docs/performance.md from docs/performance.md.tmpl and the committed bench reports docs/bench/*.json", perfdoc},
	"record":  {"run every lesson's experiments on a device and write reference results (JSON + charts)", record},
	"run":     {"execute notebooks headless with the course kernel; executed copies + HTML in build/", runNotebooks},
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: whygpu <command> [flags]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(os.Stderr, "  %-10s %s\n", n, commands[n].summary)
	}
}

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	c, ok := commands[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "whygpu: unknown command %q\n\n", os.Args[1])
		usage()
		os.Exit(2)
	}
	if err := c.run(os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, "whygpu:", err)
		os.Exit(1)
	}
}
