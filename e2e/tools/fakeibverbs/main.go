// Command fakeibverbs is a stand-in for rdma-core's libibverbs.so.1 and libmlx5.so.1 in one
// library, built with
//
//	go build -buildmode=c-shared -o libibverbs.so ./tools/fakeibverbs
//
// and reached under both names (libmlx5.so a symlink to it, so the dynamic loader gives one
// handle). It exports the functions Tandem's discovery binds through JNA (topology-discovery's
// ibverbs.Ibverbs and DataDirectPath), with the C signatures of rdma-core's libibverbs/verbs.h and
// providers/mlx5/mlx5dv.h: the device list, names, open and close, ibv_query_port (its exported
// compatibility symbol; only state at offset 0 and link_layer at offset 46 of struct ibv_port_attr
// are written) and mlx5dv_get_data_direct_sysfs_path (0 and the path, or an errno: ENODEV for a
// device without a Data Direct function, ENOSPC when the buffer is too short;
// providers/mlx5/man/mlx5dv_get_data_direct_sysfs_path.3.md). It answers from a layout file: JSON
// as in layout.go, named by the environment variable FAKE_IBVERBS_LAYOUT and read again by every
// ibv_get_device_list.
package main

/*
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct ibv_device;
struct ibv_context;

static void set_errno(int e) { errno = e; }
*/
import "C"

import (
	"fmt"
	"os"
	"sync"
	"unsafe"
)

// Where struct ibv_port_attr holds what the fake writes (verbs.h: enum ibv_port_state state first;
// uint8_t link_layer after 46 bytes of earlier fields).
const (
	stateOffset     = 0
	linkLayerOffset = 46
	portAttrWritten = linkLayerOffset + 1
)

// errno values the fake answers (Linux's).
const (
	errNoDev  = 19 // ENODEV
	errInval  = 22 // EINVAL
	errNoSpc  = 28 // ENOSPC
	errNoEnt  = 2  // ENOENT
	errNoSys  = 38 // ENOSYS
	pointerSz = unsafe.Sizeof(uintptr(0))
)

var (
	mu       sync.Mutex
	loaded   *layout
	byName   = map[string]unsafe.Pointer{} // device name -> its struct ibv_device* stand-in
	names    = map[uintptr]*C.char{}       // struct ibv_device* -> its name (C memory)
	contexts = map[uintptr]string{}        // open struct ibv_context* -> its device's name
	envName  = C.CString("FAKE_IBVERBS_LAYOUT")
)

func main() {}

// find is the layout's device of that name.
func find(name string) (device, bool) {
	if loaded != nil {
		for _, d := range loaded.Devices {
			if d.Name == name {
				return d, true
			}
		}
	}
	return device{}, false
}

//export ibv_get_device_list
func ibv_get_device_list(num *C.int) **C.struct_ibv_device {
	mu.Lock()
	defer mu.Unlock()
	p := C.getenv(envName)
	if p == nil {
		C.set_errno(errNoSys)
		return nil
	}
	l, err := readLayout(C.GoString(p))
	if err != nil {
		fmt.Fprintf(os.Stderr, "fakeibverbs: %v\n", err)
		C.set_errno(errNoEnt)
		return nil
	}
	loaded = l
	list := C.calloc(C.size_t(len(l.Devices)+1), C.size_t(pointerSz))
	slots := unsafe.Slice((*unsafe.Pointer)(list), len(l.Devices)+1)
	for i, d := range l.Devices {
		dev, ok := byName[d.Name]
		if !ok {
			dev = C.malloc(1)
			byName[d.Name] = dev
			names[uintptr(dev)] = C.CString(d.Name)
		}
		slots[i] = dev
	}
	if num != nil {
		*num = C.int(len(l.Devices))
	}
	return (**C.struct_ibv_device)(list)
}

//export ibv_free_device_list
func ibv_free_device_list(list **C.struct_ibv_device) {
	C.free(unsafe.Pointer(list))
}

//export ibv_get_device_name
func ibv_get_device_name(dev *C.struct_ibv_device) *C.char {
	mu.Lock()
	defer mu.Unlock()
	return names[uintptr(unsafe.Pointer(dev))]
}

//export ibv_open_device
func ibv_open_device(dev *C.struct_ibv_device) *C.struct_ibv_context {
	mu.Lock()
	defer mu.Unlock()
	name, ok := names[uintptr(unsafe.Pointer(dev))]
	if !ok {
		C.set_errno(errInval)
		return nil
	}
	ctx := C.malloc(1)
	contexts[uintptr(ctx)] = C.GoString(name)
	return (*C.struct_ibv_context)(ctx)
}

//export ibv_close_device
func ibv_close_device(ctx *C.struct_ibv_context) C.int {
	mu.Lock()
	defer mu.Unlock()
	if _, ok := contexts[uintptr(unsafe.Pointer(ctx))]; !ok {
		return errInval
	}
	delete(contexts, uintptr(unsafe.Pointer(ctx)))
	C.free(unsafe.Pointer(ctx))
	return 0
}

//export ibv_query_port
func ibv_query_port(ctx *C.struct_ibv_context, port C.uint8_t, attr unsafe.Pointer) C.int {
	mu.Lock()
	defer mu.Unlock()
	d, ok := find(contexts[uintptr(unsafe.Pointer(ctx))])
	if !ok || port != 1 || attr == nil {
		return errInval
	}
	out := unsafe.Slice((*byte)(attr), portAttrWritten)
	*(*C.int)(unsafe.Pointer(&out[stateOffset])) = C.int(d.State)
	out[linkLayerOffset] = byte(d.LinkLayer)
	return 0
}

//export mlx5dv_get_data_direct_sysfs_path
func mlx5dv_get_data_direct_sysfs_path(ctx *C.struct_ibv_context, buf *C.char, length C.size_t) C.int {
	mu.Lock()
	defer mu.Unlock()
	d, ok := find(contexts[uintptr(unsafe.Pointer(ctx))])
	switch {
	case !ok || buf == nil:
		return errInval
	case d.DataDirectErrno != 0:
		return C.int(d.DataDirectErrno)
	case d.DataDirect == "":
		return errNoDev
	case int(length) < len(d.DataDirect)+1:
		return errNoSpc
	}
	out := unsafe.Slice((*byte)(unsafe.Pointer(buf)), int(length))
	copy(out, d.DataDirect)
	out[len(d.DataDirect)] = 0
	return 0
}
