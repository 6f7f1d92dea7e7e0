// Command fakenvml is a stand-in for NVIDIA's libnvidia-ml.so.1, built with
//
//	go build -buildmode=c-shared -o libnvidia-ml.so.1 ./tools/fakenvml
//
// It exports the NVML functions Tandem calls (the agent to read MIG devices, the device plugin to
// find GPUs by UUID for their health), with the C signatures of NVIDIA's nvml.h (nvmlReturn_t is an
// int, nvmlDevice_t an opaque pointer, nvmlPciInfo_t the v3 layout), and answers from a layout
// file: JSON as in layout.go, named by the environment variable FAKE_NVML_LAYOUT when NVML is
// initialised, or set by fakeNvmlLoad. Three extra functions, not NVML's, let an in-process test
// set the layout and count the calls. Like NVML, it counts initialisations: nvmlShutdown undoes
// one, and calls fail with NVML_ERROR_UNINITIALIZED once every one is undone.
package main

/*
#include <stdlib.h>
#include <string.h>

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st* nvmlDevice_t;
typedef struct nvmlPciInfo_st {
	char busIdLegacy[16];
	unsigned int domain;
	unsigned int bus;
	unsigned int device;
	unsigned int pciDeviceId;
	unsigned int pciSubSystemId;
	char busId[32];
} nvmlPciInfo_t;
*/
import "C"

import (
	"sync"
	"unsafe"
)

// NVML return codes (nvmlReturn_t) the fake gives.
const (
	success          = 0
	errUninitialized = 1
	errInvalidArg    = 2
	errNotSupported  = 3
	errNotFound      = 6
	errInsufficient  = 7
)

var (
	mu       sync.Mutex
	loaded   *layout
	devices  map[uintptr]deviceRef
	handles  map[deviceRef]unsafe.Pointer
	initDone int
	inits    int
	messages = map[C.nvmlReturn_t]*C.char{}
	envName  = C.CString("FAKE_NVML_LAYOUT")
)

// deviceRef names a GPU (mig < 0) or its MIG device at index mig.
type deviceRef struct{ gpu, mig int }

func main() {}

//export fakeNvmlLoad
func fakeNvmlLoad(path *C.char) C.int {
	mu.Lock()
	defer mu.Unlock()
	l, err := readLayout(C.GoString(path))
	if err != nil {
		return -1
	}
	loaded = l
	return 0
}

//export fakeNvmlInits
func fakeNvmlInits() C.int {
	mu.Lock()
	defer mu.Unlock()
	return C.int(inits)
}

//export fakeNvmlOpen
func fakeNvmlOpen() C.int {
	mu.Lock()
	defer mu.Unlock()
	return C.int(initDone)
}

//export nvmlInit_v2
func nvmlInit_v2() C.nvmlReturn_t {
	mu.Lock()
	defer mu.Unlock()
	inits++
	if loaded == nil {
		if p := C.getenv(envName); p != nil {
			l, err := readLayout(C.GoString(p))
			if err != nil {
				return 999 // NVML_ERROR_UNKNOWN
			}
			loaded = l
		}
	}
	if loaded == nil {
		return 999
	}
	if loaded.InitError != 0 {
		return C.nvmlReturn_t(loaded.InitError)
	}
	initDone++
	return success
}

//export nvmlShutdown
func nvmlShutdown() C.nvmlReturn_t {
	mu.Lock()
	defer mu.Unlock()
	if initDone == 0 {
		return errUninitialized
	}
	initDone--
	return success
}

//export nvmlErrorString
func nvmlErrorString(rc C.nvmlReturn_t) *C.char {
	mu.Lock()
	defer mu.Unlock()
	if s, ok := messages[rc]; ok {
		return s
	}
	s := C.CString(errorText(int(rc)))
	messages[rc] = s
	return s
}

//export nvmlDeviceGetCount_v2
func nvmlDeviceGetCount_v2(count *C.uint) C.nvmlReturn_t {
	mu.Lock()
	defer mu.Unlock()
	if initDone == 0 {
		return errUninitialized
	}
	if count == nil {
		return errInvalidArg
	}
	*count = C.uint(len(loaded.GPUs))
	return success
}

//export nvmlDeviceGetHandleByIndex_v2
func nvmlDeviceGetHandleByIndex_v2(index C.uint, device *C.nvmlDevice_t) C.nvmlReturn_t {
	mu.Lock()
	defer mu.Unlock()
	if initDone == 0 {
		return errUninitialized
	}
	if device == nil || int(index) >= len(loaded.GPUs) {
		return errInvalidArg
	}
	*device = handle(deviceRef{gpu: int(index), mig: -1})
	return success
}

//export nvmlDeviceGetHandleByUUID
func nvmlDeviceGetHandleByUUID(uuid *C.char, device *C.nvmlDevice_t) C.nvmlReturn_t {
	mu.Lock()
	defer mu.Unlock()
	if initDone == 0 {
		return errUninitialized
	}
	if uuid == nil || device == nil {
		return errInvalidArg
	}
	id := C.GoString(uuid)
	for i, g := range loaded.GPUs {
		if g.UUID == id {
			*device = handle(deviceRef{gpu: i, mig: -1})
			return success
		}
		for j, m := range g.MigDevices {
			if m != "" && m == id {
				*device = handle(deviceRef{gpu: i, mig: j})
				return success
			}
		}
	}
	return errNotFound
}

//export nvmlDeviceGetUUID
func nvmlDeviceGetUUID(device C.nvmlDevice_t, uuid *C.char, length C.uint) C.nvmlReturn_t {
	mu.Lock()
	defer mu.Unlock()
	ref, rc := resolve(device)
	if rc != success {
		return rc
	}
	id := loaded.GPUs[ref.gpu].UUID
	if ref.mig >= 0 {
		id = loaded.GPUs[ref.gpu].MigDevices[ref.mig]
	}
	if uuid == nil || int(length) < len(id)+1 {
		return errInsufficient
	}
	out := unsafe.Slice((*byte)(unsafe.Pointer(uuid)), int(length))
	copy(out, id)
	out[len(id)] = 0
	return success
}

//export nvmlDeviceGetPciInfo_v3
func nvmlDeviceGetPciInfo_v3(device C.nvmlDevice_t, pci *C.nvmlPciInfo_t) C.nvmlReturn_t {
	mu.Lock()
	defer mu.Unlock()
	ref, rc := resolve(device)
	if rc != success {
		return rc
	}
	if pci == nil {
		return errInvalidArg
	}
	if ref.mig >= 0 {
		return errNotSupported
	}
	bus := loaded.GPUs[ref.gpu].BusID
	if len(bus) >= len(pci.busId) {
		return errInvalidArg
	}
	*pci = C.nvmlPciInfo_t{}
	for i := 0; i < len(bus); i++ {
		pci.busId[i] = C.char(bus[i])
	}
	return success
}

//export nvmlDeviceGetMigMode
func nvmlDeviceGetMigMode(device C.nvmlDevice_t, current, pending *C.uint) C.nvmlReturn_t {
	mu.Lock()
	defer mu.Unlock()
	ref, rc := resolve(device)
	if rc != success {
		return rc
	}
	if current == nil || pending == nil {
		return errInvalidArg
	}
	g := loaded.GPUs[ref.gpu]
	if ref.mig >= 0 || g.MigMode == migUnsupported {
		return errNotSupported
	}
	mode := C.uint(0)
	if g.MigMode == migEnabled {
		mode = 1 // NVML_DEVICE_MIG_ENABLE
	}
	*current, *pending = mode, mode
	return success
}

//export nvmlDeviceGetMaxMigDeviceCount
func nvmlDeviceGetMaxMigDeviceCount(device C.nvmlDevice_t, count *C.uint) C.nvmlReturn_t {
	mu.Lock()
	defer mu.Unlock()
	ref, rc := resolve(device)
	if rc != success {
		return rc
	}
	if count == nil {
		return errInvalidArg
	}
	if ref.mig >= 0 || loaded.GPUs[ref.gpu].MigMode == migUnsupported {
		return errNotSupported
	}
	*count = C.uint(len(loaded.GPUs[ref.gpu].MigDevices))
	return success
}

//export nvmlDeviceGetMigDeviceHandleByIndex
func nvmlDeviceGetMigDeviceHandleByIndex(device C.nvmlDevice_t, index C.uint, mig *C.nvmlDevice_t) C.nvmlReturn_t {
	mu.Lock()
	defer mu.Unlock()
	ref, rc := resolve(device)
	if rc != success {
		return rc
	}
	if mig == nil || ref.mig >= 0 {
		return errInvalidArg
	}
	g := loaded.GPUs[ref.gpu]
	if g.MigMode != migEnabled {
		return errNotSupported
	}
	if int(index) >= len(g.MigDevices) {
		return errInvalidArg
	}
	if g.MigDevices[index] == "" {
		return errNotFound
	}
	*mig = handle(deviceRef{gpu: ref.gpu, mig: int(index)})
	return success
}

// handle is the stable C pointer standing for a device (C memory, so C may hold it).
func handle(ref deviceRef) C.nvmlDevice_t {
	if handles == nil {
		handles, devices = map[deviceRef]unsafe.Pointer{}, map[uintptr]deviceRef{}
	}
	p, ok := handles[ref]
	if !ok {
		p = C.malloc(1)
		handles[ref] = p
		devices[uintptr(p)] = ref
	}
	return C.nvmlDevice_t(p)
}

func resolve(device C.nvmlDevice_t) (deviceRef, C.nvmlReturn_t) {
	if initDone == 0 {
		return deviceRef{}, errUninitialized
	}
	ref, ok := devices[uintptr(unsafe.Pointer(device))]
	if !ok || ref.gpu >= len(loaded.GPUs) || ref.mig >= len(loaded.GPUs[ref.gpu].MigDevices) {
		return deviceRef{}, errInvalidArg
	}
	return ref, success
}
