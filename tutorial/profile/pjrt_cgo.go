//go:build cgo && linux

package profile

// The C declarations below mirror, field for field, the structs this package touches in
//   - xla/pjrt/c/pjrt_c_api.h (PJRT C API 0.x; go-xla v0.4.13 ships 0.104, the H200 plugin speaks 0.115 — the
//     prefix used here is identical in both: fields are only ever appended),
//   - xla/pjrt/c/pjrt_c_api_profiler_extension.h (PJRT_Profiler_Extension),
//   - xla/backends/profiler/plugin/profiler_c_api.h (PLUGIN_Profiler_Api and its *_Args).
// XLA's headers are not available at build time (and go-xla's copy is internal to its package), so they are
// re-declared; struct sizes follow the headers' STRUCT_SIZE macros: offsetof(last field) + sizeof(last field).

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TP_STRUCT_SIZE(type, last) (offsetof(type, last) + sizeof(((type*)0)->last))

// ---- pjrt_c_api.h ----
typedef struct PJRT_Extension_Base {
  size_t struct_size;
  int type;  // PJRT_Extension_Type, a C enum: int-sized.
  struct PJRT_Extension_Base* next;
} PJRT_Extension_Base;
enum { TP_PJRT_Extension_Type_Profiler = 1 };  // Gpu_Custom_Call = 0, Profiler = 1, Custom_Partitioner = 2, ...

typedef struct {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  int major_version;
  int minor_version;
} PJRT_Api_Version;

typedef struct PJRT_Error PJRT_Error;
typedef struct PJRT_Device PJRT_Device;

typedef struct {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Error* error;
} PJRT_Error_Destroy_Args;

typedef struct {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_Error* error;
  const char* message;
  size_t message_size;
} PJRT_Error_Message_Args;

typedef struct {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  int64_t bytes_in_use;
  int64_t peak_bytes_in_use;
  bool peak_bytes_in_use_is_set;
  int64_t num_allocs;
  bool num_allocs_is_set;
  int64_t largest_alloc_size;
  bool largest_alloc_size_is_set;
  int64_t bytes_limit;
  bool bytes_limit_is_set;
  int64_t bytes_reserved;
  bool bytes_reserved_is_set;
  int64_t peak_bytes_reserved;
  bool peak_bytes_reserved_is_set;
  int64_t bytes_reservable_limit;
  bool bytes_reservable_limit_is_set;
  int64_t largest_free_block_bytes;
  bool largest_free_block_bytes_is_set;
  int64_t pool_bytes;
  bool pool_bytes_is_set;
  int64_t peak_pool_bytes;
  bool peak_pool_bytes_is_set;
} PJRT_Device_MemoryStats_Args;

// The first 35 function pointers of PJRT_Api, in the header's order, up to PJRT_Device_MemoryStats.
typedef struct {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Api_Version pjrt_api_version;
  void (*PJRT_Error_Destroy)(PJRT_Error_Destroy_Args*);
  void (*PJRT_Error_Message)(PJRT_Error_Message_Args*);
  void* PJRT_Error_GetCode;
  void* PJRT_Plugin_Initialize;
  void* PJRT_Plugin_Attributes;
  void* PJRT_Event_Destroy;
  void* PJRT_Event_IsReady;
  void* PJRT_Event_Error;
  void* PJRT_Event_Await;
  void* PJRT_Event_OnReady;
  void* PJRT_Client_Create;
  void* PJRT_Client_Destroy;
  void* PJRT_Client_PlatformName;
  void* PJRT_Client_ProcessIndex;
  void* PJRT_Client_PlatformVersion;
  void* PJRT_Client_Devices;
  void* PJRT_Client_AddressableDevices;
  void* PJRT_Client_LookupDevice;
  void* PJRT_Client_LookupAddressableDevice;
  void* PJRT_Client_AddressableMemories;
  void* PJRT_Client_Compile;
  void* PJRT_Client_DefaultDeviceAssignment;
  void* PJRT_Client_BufferFromHostBuffer;
  void* PJRT_DeviceDescription_Id;
  void* PJRT_DeviceDescription_ProcessIndex;
  void* PJRT_DeviceDescription_Attributes;
  void* PJRT_DeviceDescription_Kind;
  void* PJRT_DeviceDescription_DebugString;
  void* PJRT_DeviceDescription_ToString;
  void* PJRT_Device_GetDescription;
  void* PJRT_Device_IsAddressable;
  void* PJRT_Device_LocalHardwareId;
  void* PJRT_Device_AddressableMemories;
  void* PJRT_Device_DefaultMemory;
  PJRT_Error* (*PJRT_Device_MemoryStats)(PJRT_Device_MemoryStats_Args*);
} PJRT_Api_Prefix;

// ---- profiler_c_api.h ----
typedef struct PLUGIN_Profiler PLUGIN_Profiler;
typedef struct PLUGIN_Profiler_Error PLUGIN_Profiler_Error;

typedef struct { size_t struct_size; void* priv; PLUGIN_Profiler_Error* error; } PLUGIN_Profiler_Error_Destroy_Args;
typedef struct {
  size_t struct_size;
  void* priv;
  const PLUGIN_Profiler_Error* error;
  const char* message;
  size_t message_size;
} PLUGIN_Profiler_Error_Message_Args;
typedef struct { size_t struct_size; void* priv; const PLUGIN_Profiler_Error* error; int code; } PLUGIN_Profiler_Error_GetCode_Args;
typedef struct {
  size_t struct_size;
  const char* options;
  size_t options_size;
  PLUGIN_Profiler* profiler;
} PLUGIN_Profiler_Create_Args;
typedef struct { size_t struct_size; PLUGIN_Profiler* profiler; } PLUGIN_Profiler_Destroy_Args;
typedef struct { size_t struct_size; PLUGIN_Profiler* profiler; } PLUGIN_Profiler_Start_Args;
typedef struct { size_t struct_size; PLUGIN_Profiler* profiler; } PLUGIN_Profiler_Stop_Args;
typedef struct {
  size_t struct_size;
  PLUGIN_Profiler* profiler;
  uint8_t* buffer;
  size_t buffer_size_in_bytes;
} PLUGIN_Profiler_CollectData_Args;

typedef struct {
  size_t struct_size;
  void* priv;
  void (*error_destroy)(PLUGIN_Profiler_Error_Destroy_Args*);
  void (*error_message)(PLUGIN_Profiler_Error_Message_Args*);
  PLUGIN_Profiler_Error* (*error_get_code)(PLUGIN_Profiler_Error_GetCode_Args*);
  PLUGIN_Profiler_Error* (*create)(PLUGIN_Profiler_Create_Args*);
  PLUGIN_Profiler_Error* (*destroy)(PLUGIN_Profiler_Destroy_Args*);
  PLUGIN_Profiler_Error* (*start)(PLUGIN_Profiler_Start_Args*);
  PLUGIN_Profiler_Error* (*stop)(PLUGIN_Profiler_Stop_Args*);
  PLUGIN_Profiler_Error* (*collect_data)(PLUGIN_Profiler_CollectData_Args*);
  // Newer headers append consume, serialize and consume_result_destroy (struct_size 104 on the H200): unused.
} PLUGIN_Profiler_Api;

// ---- pjrt_c_api_profiler_extension.h ----
typedef struct {
  size_t struct_size;
  int type;
  PJRT_Extension_Base* next;
  PLUGIN_Profiler_Api* profiler_api;
  int64_t traceme_context_id;
} PJRT_Profiler_Extension;

static int tp_api_prefix_ok(const PJRT_Api_Prefix* api, size_t field_end) {
  return api != NULL && api->struct_size >= field_end;
}

// tp_open finds the already-loaded library at path and its PJRT_Api. Returns 0 on success, else fills err.
static int tp_open(const char* path, void** handle, const PJRT_Api_Prefix** api, char* err, size_t n) {
  dlerror();
  void* h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
  if (h == NULL) {
    const char* e = dlerror();
    snprintf(err, n, "%s", e ? e : "not loaded in this process");
    return 1;
  }
  dlerror();
  void* sym = dlsym(h, "GetPjrtApi");
  if (sym == NULL) {
    const char* e = dlerror();
    snprintf(err, n, "no GetPjrtApi symbol: %s", e ? e : "?");
    dlclose(h);
    return 1;
  }
  const PJRT_Api_Prefix* (*get_api)(void) = (const PJRT_Api_Prefix* (*)(void))sym;
  const PJRT_Api_Prefix* a = get_api();
  if (a == NULL) {
    snprintf(err, n, "GetPjrtApi returned NULL");
    dlclose(h);
    return 1;
  }
  *handle = h;
  *api = a;
  return 0;
}

// tp_load loads a library for real (tests load a fake plugin this way, as go-xla would load the real one).
static int tp_load(const char* path, char* err, size_t n) {
  void* h = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
  if (h == NULL) {
    const char* e = dlerror();
    snprintf(err, n, "%s", e ? e : "dlopen failed");
    return 1;
  }
  return 0;
}

static void tp_close(void* handle) {
  if (handle != NULL) dlclose(handle);
}

static void tp_api_version(const PJRT_Api_Prefix* api, int* major, int* minor) {
  *major = api->pjrt_api_version.major_version;
  *minor = api->pjrt_api_version.minor_version;
}

// tp_find_profiler walks the extension chain; returns the profiler API or NULL, and the number of extensions seen.
static const PLUGIN_Profiler_Api* tp_find_profiler(const PJRT_Api_Prefix* api, int* n_ext) {
  const PJRT_Extension_Base* e = api->extension_start;
  int i = 0;
  for (; e != NULL && i < 256; i++, e = e->next) {
    if (e->type == TP_PJRT_Extension_Type_Profiler &&
        e->struct_size >= TP_STRUCT_SIZE(PJRT_Profiler_Extension, profiler_api)) {
      *n_ext = i + 1;
      return ((const PJRT_Profiler_Extension*)e)->profiler_api;
    }
  }
  *n_ext = i;
  return NULL;
}

static size_t tp_profiler_api_min_size(void) { return TP_STRUCT_SIZE(PLUGIN_Profiler_Api, collect_data); }

// tp_profiler_error copies the error's message into buf, gets its code, and destroys it.
static void tp_profiler_error(const PLUGIN_Profiler_Api* api, PLUGIN_Profiler_Error* error, char* buf, size_t n, int* code) {
  *code = -1;
  PLUGIN_Profiler_Error_Message_Args m;
  memset(&m, 0, sizeof(m));
  m.struct_size = TP_STRUCT_SIZE(PLUGIN_Profiler_Error_Message_Args, message_size);
  m.error = error;
  api->error_message(&m);
  snprintf(buf, n, "%.*s", (int)m.message_size, m.message != NULL ? m.message : "");
  if (api->error_get_code != NULL) {
    PLUGIN_Profiler_Error_GetCode_Args g;
    memset(&g, 0, sizeof(g));
    g.struct_size = TP_STRUCT_SIZE(PLUGIN_Profiler_Error_GetCode_Args, code);
    g.error = error;
    PLUGIN_Profiler_Error* e2 = api->error_get_code(&g);
    if (e2 == NULL) {
      *code = g.code;
    } else {
      PLUGIN_Profiler_Error_Destroy_Args d2 = {TP_STRUCT_SIZE(PLUGIN_Profiler_Error_Destroy_Args, error), NULL, e2};
      api->error_destroy(&d2);
    }
  }
  PLUGIN_Profiler_Error_Destroy_Args d = {TP_STRUCT_SIZE(PLUGIN_Profiler_Error_Destroy_Args, error), NULL, error};
  api->error_destroy(&d);
}

static PLUGIN_Profiler_Error* tp_create(const PLUGIN_Profiler_Api* api, const char* opts, size_t opts_size, PLUGIN_Profiler** out) {
  PLUGIN_Profiler_Create_Args a;
  memset(&a, 0, sizeof(a));
  a.struct_size = TP_STRUCT_SIZE(PLUGIN_Profiler_Create_Args, profiler);
  a.options = opts;
  a.options_size = opts_size;
  PLUGIN_Profiler_Error* e = api->create(&a);
  *out = a.profiler;
  return e;
}

static PLUGIN_Profiler_Error* tp_start(const PLUGIN_Profiler_Api* api, PLUGIN_Profiler* p) {
  PLUGIN_Profiler_Start_Args a = {TP_STRUCT_SIZE(PLUGIN_Profiler_Start_Args, profiler), p};
  return api->start(&a);
}

static PLUGIN_Profiler_Error* tp_stop(const PLUGIN_Profiler_Api* api, PLUGIN_Profiler* p) {
  PLUGIN_Profiler_Stop_Args a = {TP_STRUCT_SIZE(PLUGIN_Profiler_Stop_Args, profiler), p};
  return api->stop(&a);
}

static PLUGIN_Profiler_Error* tp_destroy(const PLUGIN_Profiler_Api* api, PLUGIN_Profiler* p) {
  PLUGIN_Profiler_Destroy_Args a = {TP_STRUCT_SIZE(PLUGIN_Profiler_Destroy_Args, profiler), p};
  return api->destroy(&a);
}

// tp_collect calls collect_data with buffer (NULL: the plugin returns its own buffer and its size).
static PLUGIN_Profiler_Error* tp_collect(const PLUGIN_Profiler_Api* api, PLUGIN_Profiler* p, uint8_t** buffer, size_t* size) {
  PLUGIN_Profiler_CollectData_Args a;
  memset(&a, 0, sizeof(a));
  a.struct_size = TP_STRUCT_SIZE(PLUGIN_Profiler_CollectData_Args, buffer_size_in_bytes);
  a.profiler = p;
  a.buffer = *buffer;
  PLUGIN_Profiler_Error* e = api->collect_data(&a);
  *buffer = a.buffer;
  *size = a.buffer_size_in_bytes;
  return e;
}

// tp_device_memory_stats calls PJRT_Device_MemoryStats; on error copies the message into err and returns 1.
static int tp_device_memory_stats(const PJRT_Api_Prefix* api, PJRT_Device* device, PJRT_Device_MemoryStats_Args* out, char* err, size_t n) {
  if (!tp_api_prefix_ok(api, offsetof(PJRT_Api_Prefix, PJRT_Device_MemoryStats) + sizeof(void*)) ||
      api->PJRT_Device_MemoryStats == NULL) {
    snprintf(err, n, "plugin's PJRT_Api has no PJRT_Device_MemoryStats");
    return 1;
  }
  memset(out, 0, sizeof(*out));
  out->struct_size = TP_STRUCT_SIZE(PJRT_Device_MemoryStats_Args, peak_pool_bytes_is_set);
  out->device = device;
  PJRT_Error* e = api->PJRT_Device_MemoryStats(out);
  if (e == NULL) return 0;
  PJRT_Error_Message_Args m;
  memset(&m, 0, sizeof(m));
  m.struct_size = TP_STRUCT_SIZE(PJRT_Error_Message_Args, message_size);
  m.error = e;
  api->PJRT_Error_Message(&m);
  snprintf(err, n, "%.*s", (int)m.message_size, m.message != NULL ? m.message : "");
  PJRT_Error_Destroy_Args d;
  memset(&d, 0, sizeof(d));
  d.struct_size = TP_STRUCT_SIZE(PJRT_Error_Destroy_Args, error);
  d.error = e;
  api->PJRT_Error_Destroy(&d);
  return 1;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/gomlx-tutorials/trainopt/tutorial/profile/memory"
)

const cErrLen = 2048

var (
	captureMu     sync.Mutex
	captureActive bool
)

// Capture is a profiling session running in the CUDA PJRT plugin. Only one may be active at a time.
type Capture struct {
	handle  unsafe.Pointer
	api     *C.PLUGIN_Profiler_Api
	prof    *C.PLUGIN_Profiler
	info    PluginInfo
	clock   captureClock
	stopped bool
}

// openPlugin finds the first candidate that is loaded and exports GetPjrtApi.
func openPlugin(pluginPath string) (handle unsafe.Pointer, api *C.PJRT_Api_Prefix, path string, err error) {
	candidates := pluginCandidates(pluginPath)
	if len(candidates) == 0 {
		return nil, nil, "", ErrNoPlugin
	}
	var reasons []string
	errBuf := (*C.char)(C.malloc(cErrLen))
	defer C.free(unsafe.Pointer(errBuf))
	for _, p := range candidates {
		cPath := C.CString(p)
		var h unsafe.Pointer
		var a *C.PJRT_Api_Prefix
		rc := C.tp_open(cPath, &h, &a, errBuf, cErrLen)
		C.free(unsafe.Pointer(cPath))
		if rc == 0 {
			return h, a, p, nil
		}
		reasons = append(reasons, fmt.Sprintf("%s: %s", p, C.GoString(errBuf)))
	}
	return nil, nil, "", fmt.Errorf("%w (%s)", ErrNoPlugin, strings.Join(reasons, "; "))
}

// StartCapture starts XLA's profiler inside the loaded CUDA PJRT plugin. pluginPath is the plugin's path as given
// to GoMLX (GOMLX_BACKEND="xla:/abs/path/xla_cuda_plugin.so"); "" means: from GOMLX_BACKEND, else any CUDA PJRT
// plugin mapped in the process. It fails with ErrNoPlugin (never crashes) when no such plugin is loaded.
func StartCapture(pluginPath string, opts CaptureOptions) (*Capture, error) {
	captureMu.Lock()
	defer captureMu.Unlock()
	if captureActive {
		return nil, errors.New("a profile capture is already running: Stop it first")
	}
	handle, api, path, err := openPlugin(pluginPath)
	if err != nil {
		return nil, err
	}
	var major, minor C.int
	C.tp_api_version(api, &major, &minor)
	info := PluginInfo{Path: path, APIMajor: int(major), APIMinor: int(minor)}
	var nExt C.int
	papi := C.tp_find_profiler(api, &nExt)
	if papi == nil {
		C.tp_close(handle)
		return nil, fmt.Errorf("PJRT plugin %s (C API %d.%d) has no profiler extension among its %d extensions",
			path, major, minor, int(nExt))
	}
	info.ProfilerExtFound = true
	info.ProfilerAPISize = int(papi.struct_size)
	if papi.struct_size < C.tp_profiler_api_min_size() {
		C.tp_close(handle)
		return nil, fmt.Errorf("PJRT plugin %s: PLUGIN_Profiler_Api struct_size %d < %d expected: incompatible profiler C API",
			path, int(papi.struct_size), int(C.tp_profiler_api_min_size()))
	}

	c := &Capture{handle: handle, api: papi, info: info}
	optBytes := opts.Marshal()
	cOpts := C.CBytes(optBytes)
	defer C.free(cOpts)
	var prof *C.PLUGIN_Profiler
	if e := C.tp_create(papi, (*C.char)(cOpts), C.size_t(len(optBytes)), &prof); e != nil {
		err := c.pluginError("create profiler", e)
		C.tp_close(handle)
		return nil, err
	}
	c.prof = prof
	c.clock.start = time.Now()
	if e := C.tp_start(papi, prof); e != nil {
		err := c.pluginError("start profiler", e)
		c.destroy()
		return nil, err
	}
	captureActive = true
	return c, nil
}

// pluginError converts (and frees) a PLUGIN_Profiler_Error into a Go error carrying the plugin's message.
func (c *Capture) pluginError(what string, e *C.PLUGIN_Profiler_Error) error {
	buf := (*C.char)(C.malloc(cErrLen))
	defer C.free(unsafe.Pointer(buf))
	var code C.int
	C.tp_profiler_error(c.api, e, buf, cErrLen, &code)
	return fmt.Errorf("%s (PJRT plugin %s): %s (code %d)", what, c.info.Path, C.GoString(buf), int(code))
}

// destroy releases the profiler and the dlopen reference (errors are reported, not fatal).
func (c *Capture) destroy() error {
	var err error
	if c.prof != nil {
		if e := C.tp_destroy(c.api, c.prof); e != nil {
			err = c.pluginError("destroy profiler", e)
		}
		c.prof = nil
	}
	if c.handle != nil {
		C.tp_close(c.handle)
		c.handle = nil
	}
	return err
}

// Plugin describes the plugin the capture runs in.
func (c *Capture) Plugin() PluginInfo { return c.info }

// Window is the wall-clock interval from StartCapture to Stop (valid after Stop).
func (c *Capture) Window() Window { return c.clock.Window() }

// Stop ends the capture and returns the serialized XSpace (decode it with DecodeXSpace).
func (c *Capture) Stop() ([]byte, error) {
	captureMu.Lock()
	defer captureMu.Unlock()
	if c.stopped {
		return nil, errors.New("capture already stopped")
	}
	c.stopped = true
	captureActive = false
	c.clock.stop = time.Now()
	defer func() { _ = c.destroy() }()

	if e := C.tp_stop(c.api, c.prof); e != nil {
		return nil, c.pluginError("stop profiler", e)
	}
	// First call with a NULL buffer: XLA's plugin serializes the XSpace into a buffer it owns and returns it (valid
	// until destroy); a plugin following the header's two-call protocol leaves buffer NULL and only sets the size.
	var buf *C.uint8_t
	var size C.size_t
	if e := C.tp_collect(c.api, c.prof, &buf, &size); e != nil {
		return nil, c.pluginError("collect profile data", e)
	}
	if size == 0 {
		return nil, fmt.Errorf("collect profile data (PJRT plugin %s): empty profile", c.info.Path)
	}
	if buf == nil {
		own := (*C.uint8_t)(C.malloc(size))
		defer C.free(unsafe.Pointer(own))
		buf = own
		if e := C.tp_collect(c.api, c.prof, &buf, &size); e != nil {
			return nil, c.pluginError("collect profile data (second call)", e)
		}
	}
	out := C.GoBytes(unsafe.Pointer(buf), C.int(size))
	return trimTrailingZero(out), nil
}

// loadLibrary dlopens a library into the process (as go-xla does with the plugin); used by tests with a fake plugin.
func loadLibrary(path string) error {
	buf := (*C.char)(C.malloc(cErrLen))
	defer C.free(unsafe.Pointer(buf))
	cPath := C.CString(path)
	defer C.free(unsafe.Pointer(cPath))
	if C.tp_load(cPath, buf, cErrLen) != 0 {
		return errors.New(C.GoString(buf))
	}
	return nil
}

// deviceMemoryStats calls the plugin's PJRT_Device_MemoryStats for a PJRT_Device.
func deviceMemoryStats(apiPtr, devicePtr unsafe.Pointer) (memory.DeviceStats, error) {
	var args C.PJRT_Device_MemoryStats_Args
	buf := (*C.char)(C.malloc(cErrLen))
	defer C.free(unsafe.Pointer(buf))
	if C.tp_device_memory_stats((*C.PJRT_Api_Prefix)(apiPtr), (*C.PJRT_Device)(devicePtr), &args, buf, cErrLen) != 0 {
		return memory.DeviceStats{}, fmt.Errorf("PJRT_Device_MemoryStats: %s", C.GoString(buf))
	}
	opt := func(v C.int64_t, set C.bool) int64 {
		if bool(set) {
			return int64(v)
		}
		return -1
	}
	return memory.DeviceStats{
		BytesInUse:        int64(args.bytes_in_use),
		PeakBytesInUse:    opt(args.peak_bytes_in_use, args.peak_bytes_in_use_is_set),
		NumAllocs:         opt(args.num_allocs, args.num_allocs_is_set),
		LargestAlloc:      opt(args.largest_alloc_size, args.largest_alloc_size_is_set),
		BytesLimit:        opt(args.bytes_limit, args.bytes_limit_is_set),
		BytesReserved:     opt(args.bytes_reserved, args.bytes_reserved_is_set),
		PeakBytesReserved: opt(args.peak_bytes_reserved, args.peak_bytes_reserved_is_set),
		PoolBytes:         opt(args.pool_bytes, args.pool_bytes_is_set),
		PeakPoolBytes:     opt(args.peak_pool_bytes, args.peak_pool_bytes_is_set),
	}, nil
}
