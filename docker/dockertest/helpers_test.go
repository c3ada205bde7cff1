package dockertest

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"github.com/moby/buildkit/frontend/dockerfile/shell"
)

// repoRoot is the course checkout: two levels above this package (docker/dockertest).
func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("repository root not found at %s: %v", root, err)
	}
	return root
}

// setupEnv reads docker/setup.env: KEY=VALUE lines, values optionally in double quotes.
func setupEnv(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join(repoRoot(t), "docker", "setup.env"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	env := map[string]string{}
	line := regexp.MustCompile(`^([A-Z_][A-Z0-9_]*)=(.*)$`)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		m := line.FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("docker/setup.env: not KEY=VALUE: %q", text)
		}
		v := m[2]
		if strings.HasPrefix(v, `"`) {
			if !strings.HasSuffix(v, `"`) || len(v) < 2 {
				t.Fatalf("docker/setup.env: unbalanced quotes: %q", text)
			}
			v = v[1 : len(v)-1]
		} else if strings.ContainsAny(v, " \t'\"$`") {
			t.Fatalf("docker/setup.env: a value with spaces or shell characters must be in double quotes: %q", text)
		}
		env[m[1]] = v
	}
	return env
}

// dockerfile is a parsed Dockerfile: its stages (with typed instructions) and the ARGs before FROM.
type dockerfile struct {
	path     string
	stages   []instructions.Stage
	metaArgs map[string]string
}

func parseDockerfile(t *testing.T, rel string) dockerfile {
	t.Helper()
	path := filepath.Join(repoRoot(t), rel)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := parser.Parse(f)
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	for _, w := range res.Warnings {
		t.Errorf("%s: parser warning: %s", rel, w.Short)
	}
	stages, metaArgs, err := instructions.Parse(res.AST, nil)
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	d := dockerfile{path: rel, stages: stages, metaArgs: map[string]string{}}
	for _, a := range metaArgs {
		for _, kv := range a.Args {
			d.metaArgs[kv.Key] = kv.ValueString()
		}
	}
	return d
}

// expand substitutes ${NAME} and $NAME from vars (the build's ARG defaults).
func expand(s string, vars map[string]string) string {
	return os.Expand(s, func(k string) string { return vars[k] })
}

// commands returns the instructions of type T in the final stage, in order.
func commands[T any](d dockerfile) []T {
	var out []T
	for _, c := range d.stages[len(d.stages)-1].Commands {
		if v, ok := c.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

// word processes a Dockerfile word as the builder does: quotes removed, $VARS from vars (unknown ones,
// such as the base image's PATH, expand to "").
func word(t *testing.T, s string, vars map[string]string) string {
	t.Helper()
	var kv []string
	for k, v := range vars {
		kv = append(kv, k+"="+v)
	}
	out, _, err := shell.NewLex('\\').ProcessWord(s, shell.EnvsFromSlice(kv))
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return out
}

// finalEnv is the environment the last stage sets, ENV after ENV, with the ARG defaults in scope.
func finalEnv(t *testing.T, d dockerfile) map[string]string {
	t.Helper()
	vars := map[string]string{}
	for k, v := range d.metaArgs {
		vars[k] = v
	}
	for _, c := range d.stages[len(d.stages)-1].Commands {
		switch c := c.(type) {
		case *instructions.ArgCommand:
			for _, a := range c.Args {
				vars[a.Key] = a.ValueString()
			}
		case *instructions.EnvCommand:
			for _, kv := range c.Env {
				vars[kv.Key] = word(t, kv.Value, vars)
			}
		}
	}
	return vars
}

// dockerignore returns the patterns of docker/Dockerfile.dockerignore.
func dockerignore(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "docker", "Dockerfile.dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	var pats []string
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") {
			pats = append(pats, strings.TrimSuffix(l, "/"))
		}
	}
	return pats
}

// ignored reports whether rel (a path in the build context) is excluded by the patterns.
func ignored(rel string, pats []string) bool {
	parts := strings.Split(rel, "/")
	for _, p := range pats {
		if name, ok := strings.CutPrefix(p, "**/"); ok {
			for _, part := range parts {
				if m, _ := filepath.Match(name, part); m {
					return true
				}
			}
			continue
		}
		if rel == p || strings.HasPrefix(rel, p+"/") {
			return true
		}
		if m, _ := filepath.Match(p, rel); m {
			return true
		}
	}
	return false
}
