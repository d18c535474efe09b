// pjrt_call.h: the shape every PJRT C API call of this package has, written once for the executable cache
// (executables_cgo.go) and its test probe (executables_probe_cgo.go). Not for a file that //exports: cgo
// includes such a file's preamble twice, and the static function here would be defined twice.
#ifndef TRAINOPT_PJRT_CALL_H
#define TRAINOPT_PJRT_CALL_H

#include <stdio.h>
#include <string.h>
#include "pjrt_c_api.h"

// PJRT_ARGS declares var as the argument struct of the PJRT call fn (PJRT_Executable_Name declares a
// PJRT_Executable_Name_Args), zeroed and with its struct_size set, as every call wants it.
#define PJRT_ARGS(fn, var) \
  fn##_Args var;           \
  memset(&var, 0, sizeof(var)); \
  var.struct_size = fn##_Args_STRUCT_SIZE

// PJRT_ON_EXECUTABLE calls api->fn with x as the executable and nothing else set, and is the call's
// PJRT_Error* (NULL: it succeeded). For the calls whose arguments hold one executable and whose results the
// callers do not read: PJRT_Executable_Destroy, PJRT_LoadedExecutable_Destroy, and the Name, NumOutputs and
// GetCompiledMemoryStats that ec_load asks only to see that they succeed. (A GNU statement expression, as gcc
// and clang, cgo's compilers, accept.)
#define PJRT_ON_EXECUTABLE(api, fn, x) \
  ({                                   \
    PJRT_ARGS(fn, on_x_args_);         \
    on_x_args_.executable = (x);       \
    (api)->fn(&on_x_args_);            \
  })

// pjrt_error_text copies e's message into buf (at most n bytes, NUL included) and destroys e.
static void pjrt_error_text(const PJRT_Api* api, PJRT_Error* e, char* buf, size_t n) {
  PJRT_ARGS(PJRT_Error_Message, m);
  m.error = e;
  api->PJRT_Error_Message(&m);
  snprintf(buf, n, "%.*s", (int)m.message_size, m.message ? m.message : "");
  PJRT_ARGS(PJRT_Error_Destroy, d);
  d.error = e;
  api->PJRT_Error_Destroy(&d);
}

#endif
