//go:build !whygpufake

package main

import "github.com/gpu-course/whygpu/pkg/measure/experiments"

// fakeExperiments is empty in a real build: record runs the lessons' experiments only (a test
// build adds its fakes, fake_experiment.go a -tags whygpufake binary's).
var fakeExperiments experiments.List
