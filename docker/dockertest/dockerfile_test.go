package dockertest

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
)

const courseDockerfile = "docker/Dockerfile"

// A base image is a jupyter/docker-stacks image on quay.io with a dated tag (YYYY-MM-DD): such tags never move.
var pinnedBase = regexp.MustCompile(`^quay\.io/jupyter/(base|minimal|docker-stacks-foundation)-?(notebook)?:(\d{4}-\d{2}-\d{2})(@sha256:[0-9a-f]{64})?$`)

func TestBaseImageIsPinned(t *testing.T) {
	d := parseDockerfile(t, courseDockerfile)
	if len(d.stages) != 1 {
		t.Fatalf("want one stage, got %d", len(d.stages))
	}
	base := expand(d.stages[0].BaseName, d.metaArgs)
	m := pinnedBase.FindStringSubmatch(base)
	if m == nil {
		t.Fatalf("FROM %s (%s): want quay.io/jupyter/<stack>:<YYYY-MM-DD>, a dated docker-stacks tag", d.stages[0].BaseName, base)
	}
	if strings.Contains(base, ":latest") {
		t.Fatalf("FROM %s: never latest", base)
	}
	// the label that names the base says the same thing
	for _, l := range commands[*instructions.LabelCommand](d) {
		for _, kv := range l.Labels {
			if v := word(t, kv.Value, nil); kv.Key == "org.opencontainers.image.base.name" && v != base {
				t.Errorf("LABEL org.opencontainers.image.base.name=%s, but FROM is %s", v, base)
			}
		}
	}
	// and setup.env states that base image's Python
	if !strings.Contains(readFile(t, "docker/setup.env"), base) {
		t.Errorf("docker/setup.env does not name the base image %s next to WHYGPU_IMAGE_PYTHON", base)
	}
}

func TestRunsAsTheNotebookUser(t *testing.T) {
	d := parseDockerfile(t, courseDockerfile)
	users := commands[*instructions.UserCommand](d)
	if len(users) == 0 {
		t.Fatal("no USER: the image would run as whoever the base left, state it")
	}
	last := users[len(users)-1].User
	if !slices.Contains([]string{"${NB_UID}", "$NB_UID", "jovyan", "1000"}, last) {
		t.Fatalf("final USER %q: want the docker-stacks user (${NB_UID}, uid 1000), never root", last)
	}
	// the set-up runs as that user too, so everything it makes belongs to the learner
	sawUser := ""
	for _, c := range d.stages[0].Commands {
		switch c := c.(type) {
		case *instructions.UserCommand:
			sawUser = c.User
		case *instructions.RunCommand:
			if strings.Contains(strings.Join(c.CmdLine, " "), "scripts/setup.sh") && sawUser != "${NB_UID}" {
				t.Errorf("scripts/setup.sh runs as USER %q, want ${NB_UID}", sawUser)
			}
		}
	}
}

func TestCopySourcesExistAndAreInTheContext(t *testing.T) {
	root := repoRoot(t)
	pats := dockerignore(t)
	d := parseDockerfile(t, courseDockerfile)
	copies := commands[*instructions.CopyCommand](d)
	if len(copies) == 0 {
		t.Fatal("no COPY")
	}
	for _, c := range copies {
		if c.From != "" {
			continue
		}
		for _, src := range c.SourcePaths {
			src = filepath.Clean(src)
			if src == "." {
				continue
			}
			if _, err := os.Stat(filepath.Join(root, src)); err != nil {
				t.Errorf("COPY %s: %v", src, err)
			}
			if ignored(filepath.ToSlash(src), pats) {
				t.Errorf("COPY %s: excluded from the build context by docker/Dockerfile.dockerignore", src)
			}
		}
		if c.Chown != "" && c.Chown != "${NB_UID}:${NB_GID}" {
			t.Errorf("COPY --chown=%s: want ${NB_UID}:${NB_GID}", c.Chown)
		}
	}
	// files the RUN lines use from the copied checkout (/opt/whygpu/...) are in the context too
	used := regexp.MustCompile(`/opt/whygpu/((?:docker|scripts)/[A-Za-z0-9_./-]+)`)
	for _, r := range commands[*instructions.RunCommand](d) {
		for _, m := range used.FindAllStringSubmatch(strings.Join(r.CmdLine, " "), -1) {
			rel := strings.TrimSuffix(m[1], "/")
			if _, err := os.Stat(filepath.Join(root, rel)); err != nil {
				t.Errorf("RUN uses /opt/whygpu/%s: %v", rel, err)
			} else if ignored(rel, pats) {
				t.Errorf("RUN uses /opt/whygpu/%s, which docker/Dockerfile.dockerignore leaves out", rel)
			}
		}
	}
}

func TestBuildContextLeavesOutLocalBuilds(t *testing.T) {
	pats := dockerignore(t)
	for _, p := range []string{".venv", ".git", "build", "tests/artifacts"} {
		if !ignored(p, pats) {
			t.Errorf("docker/Dockerfile.dockerignore must leave out %s (the image builds its own)", p)
		}
	}
	for _, p := range []string{"notebooks/00-setup-check.ipynb", "scripts/setup.sh", "go.mod", "docker/smoke.sh", "tests/conftest.py"} {
		if ignored(p, pats) {
			t.Errorf("docker/Dockerfile.dockerignore leaves out %s, which the image needs", p)
		}
	}
}

func TestHealthcheck(t *testing.T) {
	d := parseDockerfile(t, courseDockerfile)
	hc := commands[*instructions.HealthCheckCommand](d)
	if len(hc) == 0 {
		t.Fatal("no HEALTHCHECK (the base image has one; state ours so its timings suit a loaded classroom machine)")
	}
	h := hc[len(hc)-1].Health
	if len(h.Test) < 2 || h.Test[0] == "NONE" {
		t.Fatalf("HEALTHCHECK %v", h.Test)
	}
	if !strings.Contains(strings.Join(h.Test, " "), "/etc/jupyter/docker_healthcheck.py") {
		t.Errorf("HEALTHCHECK %v: want docker-stacks' /etc/jupyter/docker_healthcheck.py", h.Test)
	}
	if h.Timeout.Seconds() < 2 || h.Interval.Seconds() < 5 {
		t.Errorf("HEALTHCHECK interval %v timeout %v: too tight for a busy machine", h.Interval, h.Timeout)
	}
}

// The image runs the set-up script with docker/setup.env, the same file CI's image test reads.
func TestSetupRunsFromSetupEnv(t *testing.T) {
	env := setupEnv(t)
	d := parseDockerfile(t, courseDockerfile)
	var setupRuns []string
	for _, r := range commands[*instructions.RunCommand](d) {
		line := strings.Join(r.CmdLine, " ")
		if strings.Contains(line, "scripts/setup.sh") {
			setupRuns = append(setupRuns, line)
			if !strings.Contains(line, ". docker/setup.env") || !strings.Contains(line, "set -a") {
				t.Errorf("RUN %q: must source docker/setup.env with set -a first", line)
			}
			if !strings.Contains(line, "scripts/setup.sh ${WHYGPU_SETUP_ARGS}") && !strings.Contains(line, "scripts/setup.sh --no-warm ${WHYGPU_SETUP_ARGS}") {
				t.Errorf("RUN %q: must pass ${WHYGPU_SETUP_ARGS} from docker/setup.env", line)
			}
		}
	}
	if len(setupRuns) != 2 || !strings.Contains(setupRuns[0], "--no-warm") || strings.Contains(setupRuns[1], "--no-warm") {
		t.Fatalf("want two set-up steps (inputs only with --no-warm, then everything): %q", setupRuns)
	}
	// the first step copies exactly WHYGPU_SETUP_INPUTS (the layer that is rebuilt only when they change)
	var step1 []string
	for _, c := range d.stages[0].Commands {
		if r, ok := c.(*instructions.RunCommand); ok && strings.Contains(strings.Join(r.CmdLine, " "), "scripts/setup.sh") {
			break
		}
		if cp, ok := c.(*instructions.CopyCommand); ok && strings.HasPrefix(cp.DestPath, "/opt/whygpu") {
			for _, s := range cp.SourcePaths {
				step1 = append(step1, strings.TrimSuffix(s, "/"))
			}
		}
	}
	want := strings.Fields(env["WHYGPU_SETUP_INPUTS"])
	slices.Sort(step1)
	slices.Sort(want)
	if !slices.Equal(step1, want) {
		t.Errorf("first set-up step copies %v, docker/setup.env WHYGPU_SETUP_INPUTS says %v", step1, want)
	}
	// every file the fingerprint of scripts/setup.sh reads is among them
	for _, f := range []string{"requirements.txt", "requirements-cuda.txt", "go.mod", "go.sum", "scripts/setup.sh"} {
		if !slices.Contains(want, f) {
			t.Errorf("WHYGPU_SETUP_INPUTS lacks %s", f)
		}
	}
	for _, k := range []string{"WHYGPU_GO_VERSION", "WHYGPU_GO_ZIP_SHA256", "WHYGPU_IMAGE_PYTHON", "GOTOOLCHAIN", "GOFLAGS", "CGO_CFLAGS", "GOMLX_NO_AUTO_INSTALL"} {
		if _, ok := env[k]; !ok {
			t.Errorf("docker/setup.env lacks %s", k)
		}
	}
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(env["WHYGPU_GO_ZIP_SHA256"]) {
		t.Errorf("WHYGPU_GO_ZIP_SHA256 %q is not a sha256", env["WHYGPU_GO_ZIP_SHA256"])
	}
}

func TestGoIsPinnedAndMatchesGoMod(t *testing.T) {
	env := setupEnv(t)
	goMod := readFile(t, "go.mod")
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindStringSubmatch(goMod)
	if m == nil || m[1] != env["WHYGPU_GO_VERSION"] {
		t.Fatalf("go.mod says go %v, docker/setup.env WHYGPU_GO_VERSION=%s", m, env["WHYGPU_GO_VERSION"])
	}
	d := parseDockerfile(t, courseDockerfile)
	found := false
	for _, r := range commands[*instructions.RunCommand](d) {
		line := strings.Join(r.CmdLine, " ")
		if strings.Contains(line, "install-go.sh") {
			found = true
			for _, want := range []string{"golang.org/toolchain/@v/v0.0.1-go${WHYGPU_GO_VERSION}.linux-amd64.zip", "${WHYGPU_GO_ZIP_SHA256}", ". /tmp/whygpu-go/setup.env"} {
				if !strings.Contains(line, want) {
					t.Errorf("the Go install step lacks %q: %s", want, line)
				}
			}
		}
	}
	if !found {
		t.Fatal("no RUN with docker/install-go.sh")
	}
}

// At run time the container needs no network, with the settings of the course kernel.
func TestRuntimeEnvironmentIsOffline(t *testing.T) {
	d := parseDockerfile(t, courseDockerfile)
	env := finalEnv(t, d)
	setup := setupEnv(t)
	want := map[string]string{
		"GOPROXY":                  "off",
		"GOMLX_NO_AUTO_INSTALL":    "1",
		"GOTOOLCHAIN":              "local",
		"WHYGPU_ROOT":              "/opt/whygpu",
		"JUPYTER_PATH":             "/opt/whygpu/.venv/share/jupyter",
		"PJRT_PLUGIN_LIBRARY_PATH": "/opt/whygpu/.venv/lib/pjrt",
		"GOFLAGS":                  setup["GOFLAGS"],
		"CGO_CFLAGS":               setup["CGO_CFLAGS"],
	}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("ENV %s=%q, want %q", k, env[k], v)
		}
	}
	if !strings.HasPrefix(env["PATH"], "/opt/whygpu/.venv/bin:") {
		t.Errorf("PATH=%s: the course's jupyter and jupyterhub-singleuser must come first", env["PATH"])
	}
	for _, k := range []string{"GOMODCACHE", "GOCACHE", "GOPLSCACHE"} {
		if !strings.HasPrefix(env[k], "/opt/go/") {
			t.Errorf("%s=%s: keep the warmed caches outside $HOME (a hub mounts a volume there)", k, env[k])
		}
	}
	// the build cache the set-up warmed is only used when cells build with the same flags
	kernel := readFile(t, "kernels/whygpu/kernel.json.tmpl")
	for _, k := range []string{"GOFLAGS", "CGO_CFLAGS"} {
		if !strings.Contains(kernel, `"`+k+`": "`+setup[k]+`"`) {
			t.Errorf("kernels/whygpu/kernel.json.tmpl %s differs from docker/setup.env %s=%q", k, k, setup[k])
		}
	}
}

func TestNotebooksShipReadOnlyAndTheStartHookCopiesThem(t *testing.T) {
	d := parseDockerfile(t, courseDockerfile)
	var all []string
	for _, r := range commands[*instructions.RunCommand](d) {
		all = append(all, strings.Join(r.CmdLine, " "))
	}
	joined := strings.Join(all, "\n")
	for _, want := range []string{
		"chmod a-w",
		"/usr/local/bin/before-notebook.d/50-whygpu-notebooks.sh",
		"fix-permissions /opt/go/cache",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("no RUN with %q", want)
		}
	}
	hook := readFile(t, "docker/before-notebook.d/50-whygpu-notebooks.sh")
	if !strings.Contains(hook, "docker/sync-notebooks.sh") {
		t.Error("the start hook does not run docker/sync-notebooks.sh")
	}
	st, err := os.Stat(filepath.Join(repoRoot(t), "docker", "sync-notebooks.sh"))
	if err != nil || st.Mode()&0o111 == 0 {
		t.Errorf("docker/sync-notebooks.sh must exist and be executable: %v", err)
	}
}

func readFile(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
