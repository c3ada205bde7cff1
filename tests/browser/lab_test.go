//go:build browser

package browser

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Chromium is Debian's package (apt-get install chromium; scripts/setup.sh --browser), never a
// downloaded browser. $WHYGPU_CHROMIUM overrides the path.
const defaultChromium = "/usr/bin/chromium"

// repoRoot is the checkout: $WHYGPU_ROOT, else two levels above this file.
func repoRoot(t *testing.T) string {
	if r := os.Getenv("WHYGPU_ROOT"); r != "" {
		return r
	}
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// artifacts is tests/artifacts/browser/, where screenshots and the JupyterLab log go.
func artifacts(t *testing.T) string {
	d := filepath.Join(repoRoot(t), "tests", "artifacts", "browser")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

// Lab is a JupyterLab server started for a test on a temporary copy of notebooks/.
type Lab struct {
	Root  string // the checkout
	Dir   string // the server's root_dir: a temporary copy of notebooks/
	URL   string // http://127.0.0.1:<port>
	Token string
	cmd   *exec.Cmd
	done  chan struct{}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// copyDir copies src into dst (regular files only, skipping checkpoints).
func copyDir(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			if d.Name() == ".ipynb_checkpoints" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(filepath.Join(dst, rel))
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
}

func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}

// labSettings are JupyterLab user settings for a deterministic test: every cell kept in the DOM (no
// windowing), no autosave (the copy is thrown away anyway). The news prompt and update check are off
// by the course's own settings (kernels/jupyterlab/overrides.json), which CheckNoNewsPrompt checks.
var labSettings = map[string]map[string]any{
	"@jupyterlab/notebook-extension/tracker.jupyterlab-settings":  {"windowingMode": "none"},
	"@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": false},
}

// StartLab starts JupyterLab from the course's .venv on a free loopback port with a random token,
// serving a temporary copy of notebooks/, and stops it when the test ends.
func StartLab(t *testing.T) *Lab {
	t.Helper()
	root := repoRoot(t)
	jupyter := filepath.Join(root, ".venv", "bin", "jupyter")
	if _, err := os.Stat(jupyter); err != nil {
		t.Fatalf("%s is missing: run `make setup` (scripts/setup.sh) first", jupyter)
	}
	tmp := t.TempDir()
	lab := &Lab{Root: root, Dir: filepath.Join(tmp, "notebooks"), Token: randomHex(24), done: make(chan struct{})}
	if err := copyDir(filepath.Join(root, "notebooks"), lab.Dir); err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(tmp, "settings")
	for name, v := range labSettings {
		p := filepath.Join(settings, name)
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		b, _ := json.Marshal(v)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	port := freePort(t)
	lab.URL = fmt.Sprintf("http://127.0.0.1:%d", port)
	logPath := filepath.Join(artifacts(t), "jupyterlab.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	lab.cmd = exec.Command(jupyter, "lab",
		"--ip=127.0.0.1", fmt.Sprintf("--port=%d", port), "--ServerApp.port_retries=0", "--no-browser",
		"--IdentityProvider.token="+lab.Token, "--ServerApp.root_dir="+lab.Dir,
		"--LabServerApp.user_settings_dir="+settings, "--LabServerApp.workspaces_dir="+filepath.Join(tmp, "workspaces"),
		"--MultiKernelManager.default_kernel_name=whygpu",
		// Nothing reaches the network: no extension manager on PyPI, no news feed, no update check.
		"--LabApp.extension_manager=readonly", "--LabApp.news_url=None",
		"--LabApp.check_for_updates_class=jupyterlab.handlers.announcements.NeverCheckForUpdate",
		// Lets the test read the app's state (kernel name, cell outputs) next to the DOM; every action
		// the test takes goes through the UI (menus, clicks, keys).
		"--LabApp.expose_app_in_browser=True",
	)
	if os.Geteuid() == 0 { // CI containers run as root
		lab.cmd.Args = append(lab.cmd.Args, "--allow-root")
	}
	lab.cmd.Dir = tmp
	// If the test binary dies (a timeout panic skips the cleanups), JupyterLab and its kernels go too.
	lab.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	lab.cmd.Env = append(os.Environ(),
		"JUPYTER_PATH="+filepath.Join(root, ".venv", "share", "jupyter"),
		"JUPYTER_CONFIG_DIR="+filepath.Join(tmp, "config"),
		"JUPYTER_RUNTIME_DIR="+filepath.Join(tmp, "runtime"),
		"WHYGPU_ROOT="+root,
		"WHYGPU_CACHE="+filepath.Join(tmp, "cache"),
		"PJRT_PLUGIN_LIBRARY_PATH="+envOr("PJRT_PLUGIN_LIBRARY_PATH", filepath.Join(root, ".venv", "lib", "pjrt")),
		"GOMLX_NO_AUTO_INSTALL=1",
	)
	lab.cmd.Stdout, lab.cmd.Stderr = logf, logf
	if err := lab.cmd.Start(); err != nil {
		t.Fatalf("starting JupyterLab: %v", err)
	}
	go func() { _ = lab.cmd.Wait(); logf.Close(); close(lab.done) }()
	t.Cleanup(lab.stop)

	deadline := time.Now().Add(2 * time.Minute)
	for {
		req, _ := http.NewRequest("GET", lab.URL+"/api/status", nil)
		req.Header.Set("Authorization", "token "+lab.Token)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		select {
		case <-lab.done:
			t.Fatalf("JupyterLab exited at start; see %s", logPath)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("JupyterLab did not answer on %s within 2 minutes; see %s", lab.URL, logPath)
		}
		time.Sleep(300 * time.Millisecond)
	}
	t.Logf("JupyterLab %s serving %s (log: %s)", lab.URL, lab.Dir, logPath)
	return lab
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// stop asks JupyterLab to shut down (it stops its kernels), then kills it if it lingers.
func (l *Lab) stop() {
	if l.cmd.Process == nil {
		return
	}
	_ = l.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-l.done:
		return
	case <-time.After(5 * time.Second):
	}
	// A second SIGTERM/SIGINT confirms the shutdown without the prompt.
	_ = l.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-l.done:
	case <-time.After(15 * time.Second):
		_ = l.cmd.Process.Kill()
		<-l.done
	}
}

// API calls the Jupyter server's REST API.
func (l *Lab) API(path string, v any) error {
	req, _ := http.NewRequest("GET", l.URL+path, nil)
	req.Header.Set("Authorization", "token "+l.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// Browser starts Debian's Chromium headless with a fresh profile and returns a chromedp context.
func Browser(t *testing.T, timeout time.Duration) context.Context {
	t.Helper()
	chromium := envOr("WHYGPU_CHROMIUM", defaultChromium)
	if _, err := os.Stat(chromium); err != nil {
		t.Fatalf("Chromium is not installed at %s: run `scripts/setup.sh --browser` (apt-get install chromium); the test never downloads a browser", chromium)
	}
	profile := filepath.Join(t.TempDir(), "chromium-profile")
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-features", "Translate,MediaRouter,OptimizationHints"),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1366, 1000),
	}
	ctx, cancelTimeout := context.WithTimeout(context.Background(), timeout)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelBrowser(); cancelAlloc(); cancelTimeout() })
	if err := chromedp.Do(bctx); err != nil { // starts the browser
		t.Fatalf("starting %s: %v", chromium, err)
	}
	return bctx
}

// Shot saves a PNG of the viewport as tests/artifacts/browser/<name>.png.
func Shot(t *testing.T, ctx context.Context, name string) string {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Errorf("screenshot %s: %v", name, err)
		return ""
	}
	p := filepath.Join(artifacts(t), name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Error(err)
	}
	t.Logf("screenshot %s", p)
	return p
}

// js returns a JavaScript expression that calls a helper of lab.js: js("cells") → "window.__whygpu.cells()".
func js(fn string, args ...any) string {
	var parts []string
	for _, a := range args {
		b, _ := json.Marshal(a)
		parts = append(parts, string(b))
	}
	return fmt.Sprintf("window.__whygpu.%s(%s)", fn, strings.Join(parts, ", "))
}

//go:embed lab.js
var labJS string

// Eval evaluates a lab.js helper (installing lab.js first when the page lacks it).
func Eval[T any](ctx context.Context, fn string, args ...any) (T, error) {
	expr := fmt.Sprintf("(() => { if (!window.__whygpu) { %s }; return %s; })()", labJS, js(fn, args...))
	return chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
}

// Wait polls a lab.js helper until it returns a truthy value.
func Wait[T any](ctx context.Context, timeout time.Duration, fn string, args ...any) (T, error) {
	expr := fmt.Sprintf("(() => { if (!window.__whygpu) { %s }; return %s; })()", labJS, js(fn, args...))
	return chromedp.Run(ctx, chromedp.Poll[T](expr, chromedp.WithPollingTimeout(timeout), chromedp.WithPollingInterval(250*time.Millisecond)))
}
