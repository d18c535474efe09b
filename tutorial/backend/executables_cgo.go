//go:build cgo && linux

package backend

// The C half of the executable cache (executables.go says why it sits in the plugin's function table). The
// structs come from XLA's own pjrt_c_api.h (pjrtc/, copied from go-xla v0.4.13, PJRT C API 0.104; the H200
// plugin speaks 0.115 — the API only ever appends fields, and every call passes this header's struct sizes).
// The //export'ed hook lives in executables_hook.go: cgo forbids C definitions in a file that exports.
// pjrt_call.h holds the shape of a call (zeroed arguments with their struct_size, a call on one executable, an
// error's text), shared with the test probe (executables_probe_cgo.go).

/*
#cgo CFLAGS: -I${SRCDIR}/pjrtc
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "pjrt_c_api.h"
#include "pjrt_call.h"

static PJRT_Api* ec_api;
static PJRT_Client_Compile* ec_orig_compile;

extern PJRT_Error* ecCompileHook(PJRT_Client_Compile_Args* args);

static PJRT_Error* ec_compile(PJRT_Client_Compile_Args* args) { return ecCompileHook(args); }

// ec_set_slot writes fn into the table slot, making its page writable first: the plugin's PJRT_Api is a static
// filled in at load time, which may sit in a page the loader made read-only afterwards (RELRO).
static int ec_set_slot(PJRT_Client_Compile** slot, PJRT_Client_Compile* fn, char* err, size_t n) {
  long pg = sysconf(_SC_PAGESIZE);
  uintptr_t start = (uintptr_t)slot & ~(uintptr_t)(pg - 1);
  uintptr_t end = ((uintptr_t)(slot + 1) + pg - 1) & ~(uintptr_t)(pg - 1);
  if (mprotect((void*)start, end - start, PROT_READ | PROT_WRITE) != 0) {
    snprintf(err, n, "mprotect of the plugin's function table failed");
    return 1;
  }
  *slot = fn;
  return 0;
}

// ec_install finds the loaded plugin at path and routes its PJRT_Client_Compile through ec_compile.
static int ec_install(const char* path, char* err, size_t n) {
  dlerror();
  void* h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
  if (h == NULL) {
    const char* e = dlerror();
    snprintf(err, n, "plugin not loaded in this process: %s", e ? e : "?");
    return 1;
  }
  const PJRT_Api* (*get)(void) = (const PJRT_Api* (*)(void))dlsym(h, "GetPjrtApi");
  dlclose(h);  // the backend keeps its own reference
  if (get == NULL) {
    snprintf(err, n, "no GetPjrtApi symbol");
    return 1;
  }
  PJRT_Api* api = (PJRT_Api*)get();
  if (api == NULL || api->struct_size < PJRT_STRUCT_SIZE(PJRT_Api, PJRT_Executable_GetCompiledMemoryStats)) {
    snprintf(err, n, "the plugin's PJRT API is too old (struct_size %zu)", api ? api->struct_size : 0);
    return 1;
  }
  if (api->PJRT_Client_Compile == ec_compile) return 0;  // already installed
  if (ec_api != NULL && ec_api != api) {
    snprintf(err, n, "already installed for another plugin");
    return 1;
  }
  PJRT_Client_Compile* orig = api->PJRT_Client_Compile;
  if (ec_set_slot(&api->PJRT_Client_Compile, ec_compile, err, n) != 0) return 1;
  ec_api = api;
  ec_orig_compile = orig;
  return 0;
}

// ec_uninstall puts the plugin's own compile back (tests).
static void ec_uninstall(void) {
  char err[64];
  if (ec_api != NULL && ec_api->PJRT_Client_Compile == ec_compile) {
    ec_set_slot(&ec_api->PJRT_Client_Compile, ec_orig_compile, err, sizeof(err));
  }
}

static PJRT_Error* ec_call_compile(PJRT_Client_Compile_Args* a) { return ec_orig_compile(a); }

// ec_error_text copies an error's message into buf and destroys the error.
static void ec_error_text(PJRT_Error* e, char* buf, size_t n) { pjrt_error_text(ec_api, e, buf, n); }

// ec_drop_error destroys e, if any, unread: the error of a destroy, which the caller cannot act on.
static void ec_drop_error(PJRT_Error* e) {
  if (e != NULL) {
    char buf[8];
    ec_error_text(e, buf, sizeof(buf));
  }
}

static PJRT_Error* ec_get_executable(PJRT_LoadedExecutable* le, PJRT_Executable** out) {
  PJRT_ARGS(PJRT_LoadedExecutable_GetExecutable, g);
  g.loaded_executable = le;
  PJRT_Error* e = ec_api->PJRT_LoadedExecutable_GetExecutable(&g);
  *out = g.executable;
  return e;
}

static void ec_destroy_executable(PJRT_Executable* x) {
  ec_drop_error(PJRT_ON_EXECUTABLE(ec_api, PJRT_Executable_Destroy, x));
}

static void ec_destroy_loaded(PJRT_LoadedExecutable* le) {
  ec_drop_error(PJRT_ON_EXECUTABLE(ec_api, PJRT_LoadedExecutable_Destroy, le));
}

// ec_serialize serializes a loaded executable; the caller copies the bytes, then calls ec_free_serialized.
static PJRT_Error* ec_serialize(PJRT_LoadedExecutable* le, PJRT_Executable_Serialize_Args* s) {
  PJRT_Executable* x = NULL;
  PJRT_Error* e = ec_get_executable(le, &x);
  if (e != NULL) return e;
  memset(s, 0, sizeof(*s));
  s->struct_size = PJRT_Executable_Serialize_Args_STRUCT_SIZE;
  s->executable = x;
  e = ec_api->PJRT_Executable_Serialize(s);
  ec_destroy_executable(x);
  return e;
}

static void ec_free_serialized(PJRT_Executable_Serialize_Args* s) {
  if (s->serialized_executable != NULL && s->serialized_executable_deleter != NULL) {
    s->serialized_executable_deleter(s->serialized_executable);
  }
}

// ec_load deserializes an executable and asks it what go-xla will ask (name, outputs, compiled memory
// statistics), so that an executable this plugin cannot describe is compiled again here instead of failing in
// go-xla after this hook returned it.
static PJRT_Error* ec_load(PJRT_Client* client, const char* data, size_t n, PJRT_LoadedExecutable** out) {
  PJRT_ARGS(PJRT_Executable_DeserializeAndLoad, a);
  a.client = client;
  a.serialized_executable = data;
  a.serialized_executable_size = n;
  PJRT_Error* e = ec_api->PJRT_Executable_DeserializeAndLoad(&a);
  if (e != NULL) return e;
  PJRT_Executable* x = NULL;
  e = ec_get_executable(a.loaded_executable, &x);
  if (e == NULL) e = PJRT_ON_EXECUTABLE(ec_api, PJRT_Executable_Name, x);
  if (e == NULL) e = PJRT_ON_EXECUTABLE(ec_api, PJRT_Executable_NumOutputs, x);
  if (e == NULL) e = PJRT_ON_EXECUTABLE(ec_api, PJRT_Executable_GetCompiledMemoryStats, x);
  if (x != NULL) ec_destroy_executable(x);
  if (e != NULL) {
    ec_destroy_loaded(a.loaded_executable);
    return e;
  }
  *out = a.loaded_executable;
  return NULL;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"
	"unsafe"
)

// activeCache is the cache the hook consults (nil: compile as usual).
var activeCache atomic.Pointer[ExecutableCache]

// InstallExecutableCache routes every compilation of the loaded PJRT plugin at pluginPath through cache: a
// program compiled before under the same conditions is loaded from it, any other is compiled and stored. The
// plugin must already be loaded (create the backend first). Installing again replaces the cache.
func InstallExecutableCache(pluginPath string, cache *ExecutableCache) error {
	if cache == nil {
		return errors.New("executable cache: nil cache")
	}
	cpath := C.CString(pluginPath)
	defer C.free(unsafe.Pointer(cpath))
	var buf [256]C.char
	activeCache.Store(cache)
	if C.ec_install(cpath, &buf[0], C.size_t(len(buf))) != 0 {
		activeCache.Store(nil)
		return fmt.Errorf("executable cache: %s: %s", pluginPath, C.GoString(&buf[0]))
	}
	return nil
}

// uninstallExecutableCache restores the plugin's own compile (for tests).
func uninstallExecutableCache() {
	C.ec_uninstall()
	activeCache.Store(nil)
}

// compileWithoutCache calls the plugin's own compile.
func compileWithoutCache(args *C.PJRT_Client_Compile_Args) *C.PJRT_Error {
	return C.ec_call_compile(args)
}

// compileThroughCache is the hook's body: load, or compile and store.
func compileThroughCache(cache *ExecutableCache, args *C.PJRT_Client_Compile_Args) *C.PJRT_Error {
	prog := args.program
	format := C.GoStringN(prog.format, C.int(prog.format_size))
	program := unsafe.Slice((*byte)(unsafe.Pointer(prog.code)), int(prog.code_size))
	options := unsafe.Slice((*byte)(unsafe.Pointer(args.compile_options)), int(args.compile_options_size))
	// excerpt: executable-cache-hook
	key := cache.Key(format, program, options)

	start := time.Now()
	if data, ok := cache.Load(key); ok {
		var le *C.PJRT_LoadedExecutable
		cerr := C.ec_load(args.client, (*C.char)(unsafe.Pointer(unsafe.SliceData(data))), C.size_t(len(data)), &le)
		if cerr == nil {
			args.executable = le
			cache.count(func(s *ExecutableCacheStats) { s.Hits++; s.LoadTime += time.Since(start) })
			return nil
		}
		cache.Reject(key, fmt.Errorf("PJRT could not load the stored executable: %s", errorText(cerr)))
	}
	// excerpt end

	cerr := compileWithoutCache(args)
	cache.count(func(s *ExecutableCacheStats) { s.Misses++ })
	if cerr != nil {
		return cerr // the compile's own error, for go-xla to report
	}
	start = time.Now()
	var ser C.PJRT_Executable_Serialize_Args
	if serr := C.ec_serialize(args.executable, &ser); serr != nil {
		cache.count(func(s *ExecutableCacheStats) { s.LastError = "serialize: " + errorText(serr) })
		return nil
	}
	payload := C.GoBytes(unsafe.Pointer(ser.serialized_bytes), C.int(ser.serialized_bytes_size))
	C.ec_free_serialized(&ser)
	if cache.Store(key, payload) == nil {
		cache.count(func(s *ExecutableCacheStats) { s.Stores++; s.StoreTime += time.Since(start) })
	}
	return nil
}

func errorText(e *C.PJRT_Error) string {
	var buf [512]C.char
	C.ec_error_text(e, &buf[0], C.size_t(len(buf)))
	return C.GoString(&buf[0])
}
