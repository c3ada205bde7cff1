package dockertest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The Zero to JupyterHub values: our image, a CPU and a GPU profile, per-user storage, idle culling.
func TestZeroToJupyterHubValues(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "docker", "jupyterhub", "z2jh-values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Singleuser struct {
			Image struct {
				Name string `yaml:"name"`
				Tag  string `yaml:"tag"`
			} `yaml:"image"`
			Cmd     string `yaml:"cmd"`
			UID     int    `yaml:"uid"`
			Storage struct {
				Type          string `yaml:"type"`
				Capacity      string `yaml:"capacity"`
				HomeMountPath string `yaml:"homeMountPath"`
			} `yaml:"storage"`
			Memory struct {
				Limit string `yaml:"limit"`
			} `yaml:"memory"`
			ProfileList []struct {
				DisplayName string         `yaml:"display_name"`
				Default     bool           `yaml:"default"`
				Override    map[string]any `yaml:"kubespawner_override"`
			} `yaml:"profileList"`
		} `yaml:"singleuser"`
		Cull struct {
			Enabled bool `yaml:"enabled"`
			Timeout int  `yaml:"timeout"`
			Every   int  `yaml:"every"`
		} `yaml:"cull"`
	}
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(false)
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("z2jh-values.yaml: %v", err)
	}
	su := v.Singleuser
	if su.Image.Name == "" || su.Image.Tag == "" || su.Image.Tag == "latest" {
		t.Errorf("singleuser.image %+v: name and a fixed tag", su.Image)
	}
	if su.Cmd != "jupyterhub-singleuser" || su.UID != 1000 {
		t.Errorf("singleuser cmd %q uid %d: want jupyterhub-singleuser (through the image's start.sh), uid 1000", su.Cmd, su.UID)
	}
	if su.Storage.Type != "dynamic" || su.Storage.Capacity == "" || su.Storage.HomeMountPath != "/home/jovyan" {
		t.Errorf("singleuser.storage %+v: per-user storage on /home/jovyan (it holds ~/work)", su.Storage)
	}
	if su.Memory.Limit == "" {
		t.Error("singleuser.memory.limit is not set")
	}
	var cpu, gpu int
	for _, p := range su.ProfileList {
		limits, _ := p.Override["extra_resource_limits"].(map[string]any)
		if n, ok := limits["nvidia.com/gpu"]; ok {
			gpu++
			if fmt.Sprint(n) != "1" {
				t.Errorf("profile %q: nvidia.com/gpu %v, want 1 (a GPU of one's own)", p.DisplayName, n)
			}
			img, _ := p.Override["image"].(string)
			if img == "" || strings.HasSuffix(img, ":latest") || !strings.Contains(img, ":") {
				t.Errorf("profile %q: image %q: the CUDA image with a fixed tag", p.DisplayName, img)
			}
		} else {
			cpu++
			if !p.Default {
				t.Errorf("profile %q: the CPU profile should be the default", p.DisplayName)
			}
		}
	}
	if cpu != 1 || gpu != 1 {
		t.Errorf("profiles: %d CPU, %d GPU; want one of each", cpu, gpu)
	}
	if !v.Cull.Enabled || v.Cull.Timeout <= 0 || v.Cull.Every <= 0 {
		t.Errorf("cull %+v: idle culling must be on", v.Cull)
	}
}

// The one-machine hub hands out GPU ids, never `count: 1`; its hub version matches the image's singleuser.
func TestDockerSpawnerConfig(t *testing.T) {
	conf := readFile(t, "docker/jupyterhub/jupyterhub_config.py")
	for _, want := range []string{`"device_ids": [gpu]`, `c.DockerSpawner.volumes`, `jupyterhub_idle_culler`, `c.DockerSpawner.remove = True`} {
		if !strings.Contains(conf, want) {
			t.Errorf("jupyterhub_config.py lacks %s", want)
		}
	}
	if strings.Contains(conf, `"count"`) {
		t.Error("jupyterhub_config.py asks for a GPU count: every learner would share GPU 0")
	}
	reqs := readFile(t, "docker/jupyterhub/requirements-hub.txt")
	course := readFile(t, "requirements.txt")
	for _, l := range strings.Split(course, "\n") {
		if strings.HasPrefix(strings.ToLower(l), "jupyterhub==") && !strings.Contains(reqs, l) {
			t.Errorf("the hub's requirements-hub.txt must pin the image's %s", l)
		}
	}
}
