package dockertest

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
)

// loadCompose loads docker/compose.yaml as `docker compose` does, with the given profiles active and an
// empty environment (no JUPYTER_TOKEN, no WHYGPU_PORT: the defaults a teacher gets).
func loadCompose(t *testing.T, profiles ...string) *types.Project {
	t.Helper()
	dir := filepath.Join(repoRoot(t), "docker")
	p, err := loader.LoadWithContext(context.Background(), types.ConfigDetails{
		WorkingDir:  dir,
		ConfigFiles: []types.ConfigFile{{Filename: filepath.Join(dir, "compose.yaml")}},
		Environment: types.Mapping{},
	}, func(o *loader.Options) {
		o.SetProjectName("whygpu", true)
		o.Profiles = profiles
	})
	if err != nil {
		t.Fatalf("docker/compose.yaml: %v", err)
	}
	return p
}

func TestComposeUpStartsTheCPUCourseOnly(t *testing.T) {
	p := loadCompose(t)
	if names := p.ServiceNames(); !slices.Equal(names, []string{"course"}) {
		t.Fatalf("`docker compose up` starts %v, want [course]", names)
	}
	s := p.Services["course"]
	if s.Deploy != nil && s.Deploy.Resources.Reservations != nil && len(s.Deploy.Resources.Reservations.Devices) > 0 {
		t.Error("the CPU course reserves devices")
	}
	if s.Build == nil || s.Build.Args["WHYGPU_CUDA"] == nil || *s.Build.Args["WHYGPU_CUDA"] != "0" {
		t.Errorf("course builds with WHYGPU_CUDA=0, got %+v", s.Build)
	}
}

func TestEveryServiceIsSafeAndKeepsWork(t *testing.T) {
	p := loadCompose(t, "*")
	root := repoRoot(t)
	if len(p.Services) < 2 {
		t.Fatalf("services %v: want course and course-gpu", p.ServiceNames())
	}
	for name, s := range p.Services {
		// published on loopback only, to Jupyter's 8888
		if len(s.Ports) != 1 {
			t.Errorf("%s: ports %+v", name, s.Ports)
		}
		for _, port := range s.Ports {
			if port.HostIP != "127.0.0.1" || port.Target != 8888 || port.Published != "8888" {
				t.Errorf("%s: port %+v: want 127.0.0.1:8888:8888", name, port)
			}
		}
		// token auth: JUPYTER_TOKEN is passed through when set, never set to "" (that disables the token)
		if v, ok := s.Environment["JUPYTER_TOKEN"]; ok && v != nil && *v == "" {
			t.Errorf("%s: JUPYTER_TOKEN is empty: that turns token auth off", name)
		}
		// the learner's work in a named volume
		found := false
		for _, v := range s.Volumes {
			if v.Type == types.VolumeTypeVolume && v.Source == "work" && v.Target == "/home/jovyan/work" {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no named volume on /home/jovyan/work: %+v", name, s.Volumes)
		}
		if s.HealthCheck == nil || len(s.HealthCheck.Test) < 2 || !strings.Contains(strings.Join(s.HealthCheck.Test, " "), "docker_healthcheck.py") {
			t.Errorf("%s: healthcheck %+v", name, s.HealthCheck)
		}
		if s.Deploy == nil || s.Deploy.Resources.Limits == nil || s.Deploy.Resources.Limits.MemoryBytes < 4<<30 {
			t.Errorf("%s: want a memory limit of at least 4 GiB (one seat of the lessons)", name)
		}
		// no privileges, no swap, a cap on processes
		if !slices.Equal(s.CapDrop, []string{"ALL"}) || !slices.Contains(s.SecurityOpt, "no-new-privileges:true") {
			t.Errorf("%s: cap_drop %v security_opt %v: want [ALL] and no-new-privileges:true", name, s.CapDrop, s.SecurityOpt)
		}
		if s.Deploy != nil && s.Deploy.Resources.Limits != nil {
			if int64(s.MemSwapLimit) != int64(s.Deploy.Resources.Limits.MemoryBytes) {
				t.Errorf("%s: memswap_limit %d != memory limit %d: the seat could swap", name, s.MemSwapLimit, s.Deploy.Resources.Limits.MemoryBytes)
			}
			if s.Deploy.Resources.Limits.Pids <= 0 {
				t.Errorf("%s: no pids limit", name)
			}
		}
		if s.Build == nil || s.Build.Context != root || s.Build.Dockerfile != "docker/Dockerfile" {
			t.Errorf("%s: build %+v: want the repository root as context and docker/Dockerfile", name, s.Build)
		}
		if s.Image == "" || strings.HasSuffix(s.Image, ":latest") || !strings.Contains(s.Image, ":") {
			t.Errorf("%s: image %q: name a tag", name, s.Image)
		}
	}
	if _, ok := p.Volumes["work"]; !ok {
		t.Error("no top-level volume work")
	}
}

func TestGPUProfile(t *testing.T) {
	p := loadCompose(t, "gpu")
	s, ok := p.Services["course-gpu"]
	if !ok {
		t.Fatalf("profile gpu has no course-gpu: %v", p.ServiceNames())
	}
	if !slices.Equal(s.Profiles, []string{"gpu"}) {
		t.Errorf("course-gpu profiles %v, want [gpu]", s.Profiles)
	}
	if s.Build.Args["WHYGPU_CUDA"] == nil || *s.Build.Args["WHYGPU_CUDA"] != "1" {
		t.Errorf("course-gpu builds with WHYGPU_CUDA=%v, want 1", s.Build.Args["WHYGPU_CUDA"])
	}
	r := s.Deploy.Resources.Reservations
	if r == nil || len(r.Devices) != 1 {
		t.Fatalf("course-gpu: want one device reservation, got %+v", r)
	}
	dev := r.Devices[0]
	if dev.Driver != "nvidia" || !slices.Equal(dev.Capabilities, []string{"gpu"}) {
		t.Errorf("device %+v: want driver nvidia, capabilities [gpu]", dev)
	}
	if dev.Count != 1 && dev.Count != -1 && len(dev.IDs) == 0 {
		t.Errorf("device %+v: want count 1 (or all, or device_ids)", dev)
	}
}
