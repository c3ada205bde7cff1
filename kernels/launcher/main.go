// Command whygpu-kernel starts the course kernel (GoNB) so that nothing it starts outlives it.
//
// GoNB starts gopls in a process group of its own (0.6–1.2 GB once it has loaded the course) and runs each
// cell as a child process. Shut down politely, GoNB stops them; killed (SIGKILL, an out-of-memory kill, a
// forced restart), they used to be re-parented to init and keep running. The kernel spec therefore runs
//
//	whygpu-kernel gonb --kernel {connection_file} --go_work=ROOT
//
// as two processes above GoNB, both Linux child subreapers (orphans of the tree below come back to them):
//
//	Jupyter ─ launcher (the process Jupyter started and kills)
//	            └ guard (own process group, so a kill of the kernel's group misses it; dies with the launcher)
//	                └ gonb (dies with the guard) ─ gopls, cell programs, go build …
//
// When GoNB exits, however it ends, the guard ends everything left below it (SIGTERM, then SIGKILL after a
// grace period) and exits with GoNB's status. When the launcher is killed — SIGKILL cannot be caught — the
// guard gets SIGTERM from the kernel (PR_SET_PDEATHSIG) and does the same. When the guard itself is
// killed, GoNB dies with it and the orphans come back to the launcher, which ends them.
//
// Signals the launcher receives (SIGTERM, SIGINT, SIGHUP, SIGQUIT) go on to GoNB. On other systems than
// Linux it only runs GoNB.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: whygpu-kernel GONB [ARGS...]   (the course's kernel spec runs it)")
		os.Exit(2)
	}
	os.Exit(run(os.Args[1:]))
}
