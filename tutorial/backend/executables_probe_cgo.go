//go:build cgo && linux

package backend

// What the executable cache's tests need of cgo (test files cannot use cgo): load a plugin as go-xla does and
// compile through its function table as go-xla's call_PJRT_Client_Compile does, so a test sees the patched
// slot exactly where go-xla would.

/*
#cgo CFLAGS: -I${SRCDIR}/pjrtc
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pjrt_c_api.h"
#include "pjrt_call.h"

static void* ep_handle;

static int ep_load(const char* path, char* err, size_t n) {
  ep_handle = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
  if (ep_handle == NULL) {
    snprintf(err, n, "%s", dlerror());
    return 1;
  }
  return 0;
}

static int ep_counter(const char* sym) {
  int (*f)(void) = (int (*)(void))dlsym(ep_handle, sym);
  return f ? f() : -1;
}

// ep_compile compiles program through the plugin's table and returns the executable's name (or the error).
static int ep_compile(const char* format, const char* code, size_t n, const char* opts, size_t opts_n,
                      char* out, size_t out_n) {
  const PJRT_Api* (*get)(void) = (const PJRT_Api* (*)(void))dlsym(ep_handle, "GetPjrtApi");
  const PJRT_Api* api = get();
  PJRT_Program prog;
  memset(&prog, 0, sizeof(prog));
  prog.struct_size = PJRT_Program_STRUCT_SIZE;
  prog.format = format;
  prog.format_size = strlen(format);
  prog.code = (char*)code;
  prog.code_size = n;
  PJRT_ARGS(PJRT_Client_Compile, a);
  a.program = &prog;
  a.compile_options = opts;
  a.compile_options_size = opts_n;
  PJRT_Error* e = api->PJRT_Client_Compile(&a);
  if (e != NULL) {
    pjrt_error_text(api, e, out, out_n);
    return 1;
  }
  PJRT_ARGS(PJRT_LoadedExecutable_GetExecutable, g);
  g.loaded_executable = a.executable;
  api->PJRT_LoadedExecutable_GetExecutable(&g);
  PJRT_ARGS(PJRT_Executable_Name, na);
  na.executable = g.executable;
  api->PJRT_Executable_Name(&na);
  snprintf(out, out_n, "%.*s", (int)na.executable_name_size, na.executable_name);
  PJRT_ON_EXECUTABLE(api, PJRT_Executable_Destroy, g.executable);
  PJRT_ON_EXECUTABLE(api, PJRT_LoadedExecutable_Destroy, a.executable);
  return 0;
}
*/
import "C"

import (
	"errors"
	"unsafe"
)

// probeLoad dlopens a plugin into the process, as go-xla does.
func probeLoad(path string) error {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var buf [256]C.char
	if C.ep_load(cpath, &buf[0], C.size_t(len(buf))) != 0 {
		return errors.New(C.GoString(&buf[0]))
	}
	return nil
}

// probeCounter calls a plugin's `int sym(void)` (the fake plugin's fake_compiles).
func probeCounter(sym string) int {
	csym := C.CString(sym)
	defer C.free(unsafe.Pointer(csym))
	return int(C.ep_counter(csym))
}

// probeCompile compiles program with options through the loaded plugin's function table and returns the
// executable's name.
func probeCompile(format, program string, options []byte) (string, error) {
	cformat, cprog := C.CString(format), C.CString(program)
	defer C.free(unsafe.Pointer(cformat))
	defer C.free(unsafe.Pointer(cprog))
	var copts *C.char
	if len(options) > 0 {
		copts = (*C.char)(C.CBytes(options))
		defer C.free(unsafe.Pointer(copts))
	}
	var out [256]C.char
	if C.ep_compile(cformat, cprog, C.size_t(len(program)), copts, C.size_t(len(options)), &out[0], C.size_t(len(out))) != 0 {
		return "", errors.New(C.GoString(&out[0]))
	}
	return C.GoString(&out[0]), nil
}
