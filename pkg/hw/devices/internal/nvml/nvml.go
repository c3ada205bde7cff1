// Package nvml reads the few facts the course needs from NVIDIA's management library (NVML): how
// many GPUs there are, each one's name and memory, its utilization, and the driver's version.
//
// It opens libnvidia-ml.so.1 with dlopen at first use and calls seven functions of NVML's stable C
// API (nvml.h: nvmlInit_v2, nvmlDeviceGetCount_v2, nvmlDeviceGetHandleByIndex_v2, nvmlDeviceGetName,
// nvmlDeviceGetMemoryInfo, nvmlDeviceGetUtilizationRates, nvmlSystemGetDriverVersion) instead of
// importing NVIDIA's go-nvml bindings: those bind the whole API, a 13.5 MB package archive that every
// notebook cell's program linked, about a sixth of the time an edited cell waited for its build
// (docs/performance.md). Without the library (no NVIDIA driver) Init reports false, never a crash.
package nvml

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>

typedef int nvmlReturn_t;              // NVML_SUCCESS is 0
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct { unsigned long long total, free, used; } nvmlMemory_t;
typedef struct { unsigned int gpu, memory; } nvmlUtilization_t;

static void *lib;
static nvmlReturn_t (*pInit)(void);
static nvmlReturn_t (*pCount)(unsigned int *);
static nvmlReturn_t (*pHandle)(unsigned int, nvmlDevice_t *);
static nvmlReturn_t (*pName)(nvmlDevice_t, char *, unsigned int);
static nvmlReturn_t (*pMemory)(nvmlDevice_t, nvmlMemory_t *);
static nvmlReturn_t (*pUtil)(nvmlDevice_t, nvmlUtilization_t *);
static nvmlReturn_t (*pDriver)(char *, unsigned int);

// whygpu_nvml_open loads the library and its functions and initializes NVML: 0 on success, -1
// when the library or a function is missing, else NVML's error code.
static int whygpu_nvml_open(void) {
	lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) return -1;
	pInit = dlsym(lib, "nvmlInit_v2");
	pCount = dlsym(lib, "nvmlDeviceGetCount_v2");
	pHandle = dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
	pName = dlsym(lib, "nvmlDeviceGetName");
	pMemory = dlsym(lib, "nvmlDeviceGetMemoryInfo");
	pUtil = dlsym(lib, "nvmlDeviceGetUtilizationRates");
	pDriver = dlsym(lib, "nvmlSystemGetDriverVersion");
	if (!pInit || !pCount || !pHandle || !pName || !pMemory || !pUtil || !pDriver) return -1;
	return pInit();
}

static int whygpu_nvml_count(unsigned int *n) { return pCount(n); }

static int whygpu_nvml_name(unsigned int i, char *buf, unsigned int len) {
	nvmlDevice_t d;
	int r = pHandle(i, &d);
	return r ? r : pName(d, buf, len);
}

static int whygpu_nvml_memory(unsigned int i, unsigned long long *total, unsigned long long *used) {
	nvmlDevice_t d;
	nvmlMemory_t m;
	int r = pHandle(i, &d);
	if (r || (r = pMemory(d, &m))) return r;
	*total = m.total;
	*used = m.used;
	return 0;
}

static int whygpu_nvml_util(unsigned int i, unsigned int *gpu) {
	nvmlDevice_t d;
	nvmlUtilization_t u;
	int r = pHandle(i, &d);
	if (r || (r = pUtil(d, &u))) return r;
	*gpu = u.gpu;
	return 0;
}

static int whygpu_nvml_driver(char *buf, unsigned int len) { return pDriver(buf, len); }
*/
import "C"

import (
	"fmt"
	"sync"
	"unsafe"
)

var (
	once sync.Once
	ok   bool
)

// Init loads and initializes NVML once; false when the library is absent (no NVIDIA driver) or
// NVML reports an error. Every other function needs Init to have returned true.
func Init() bool {
	once.Do(func() { ok = C.whygpu_nvml_open() == 0 })
	return ok
}

// errorOf is a non-zero NVML return code as an error.
func errorOf(what string, r C.int) error {
	if r == 0 {
		return nil
	}
	return fmt.Errorf("nvml: %s: NVML error %d", what, int(r))
}

// Count is how many GPUs NVML sees.
func Count() (int, error) {
	if !Init() {
		return 0, fmt.Errorf("nvml: no NVIDIA management library (libnvidia-ml.so.1) here")
	}
	var n C.uint
	if err := errorOf("counting the devices", C.whygpu_nvml_count(&n)); err != nil {
		return 0, err
	}
	return int(n), nil
}

// text reads a NUL-terminated string of at most 96 bytes (NVML's device-name and driver-version
// buffer sizes are 96 and 80) through read.
func text(what string, read func(buf *C.char, n C.uint) C.int) (string, error) {
	const n = 96
	buf := (*C.char)(C.malloc(n))
	defer C.free(unsafe.Pointer(buf))
	if err := errorOf(what, read(buf, n)); err != nil {
		return "", err
	}
	return C.GoString(buf), nil
}

// Name is GPU i's product name, e.g. "NVIDIA H200".
func Name(i int) (string, error) {
	return text("reading a device's name", func(buf *C.char, n C.uint) C.int { return C.whygpu_nvml_name(C.uint(i), buf, n) })
}

// Memory is GPU i's installed and used device memory, in bytes (used counts every process).
func Memory(i int) (total, used uint64, err error) {
	var t, u C.ulonglong
	if err := errorOf("reading a device's memory", C.whygpu_nvml_memory(C.uint(i), &t, &u)); err != nil {
		return 0, 0, err
	}
	return uint64(t), uint64(u), nil
}

// Utilization is the percentage of the driver's last sample period (1/6 s to 1 s) during which one
// or more kernels ran on GPU i.
func Utilization(i int) (uint32, error) {
	var g C.uint
	if err := errorOf("reading a device's utilization", C.whygpu_nvml_util(C.uint(i), &g)); err != nil {
		return 0, err
	}
	return uint32(g), nil
}

// DriverVersion is the NVIDIA driver's version, e.g. "580.159".
func DriverVersion() (string, error) {
	return text("reading the driver version", func(buf *C.char, n C.uint) C.int { return C.whygpu_nvml_driver(buf, n) })
}
