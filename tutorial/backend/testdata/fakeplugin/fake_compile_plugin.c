// A fake PJRT plugin for the executable cache's tests on a machine without a GPU, built by the test with gcc
// against the real pjrt_c_api.h. It implements only what the cache touches: Client_Compile (counted; the
// "executable" is the program's text), Executable_Serialize ("FAKE-EXE:" + program),
// Executable_DeserializeAndLoad (refuses anything without that prefix), GetExecutable, Name (the program's
// text), NumOutputs, GetCompiledMemoryStats, the destroys and the error functions. Like XLA's plugins, its
// PJRT_Api is a static table; fake_compiles() says how many real compilations ran.
#include <stdlib.h>
#include <string.h>

#include "pjrt_c_api.h"

struct PJRT_Error { char msg[96]; };
struct PJRT_Executable { char* text; size_t n; };
struct PJRT_LoadedExecutable { struct PJRT_Executable exe; };

static const char kPrefix[] = "FAKE-EXE:";
static int compiles;
int fake_compiles(void) { return compiles; }

static PJRT_Error* new_error(const char* msg) {
  PJRT_Error* e = calloc(1, sizeof(PJRT_Error));
  strncpy(e->msg, msg, sizeof(e->msg) - 1);
  return e;
}
static void error_destroy(PJRT_Error_Destroy_Args* a) { free(a->error); }
static void error_message(PJRT_Error_Message_Args* a) {
  a->message = a->error->msg;
  a->message_size = strlen(a->error->msg);
}

static PJRT_LoadedExecutable* new_loaded(const char* text, size_t n) {
  PJRT_LoadedExecutable* le = calloc(1, sizeof(PJRT_LoadedExecutable));
  le->exe.text = malloc(n + 1);
  memcpy(le->exe.text, text, n);
  le->exe.n = n;
  return le;
}

static PJRT_Error* client_compile(PJRT_Client_Compile_Args* a) {
  if (a->program == NULL || a->program->code_size == 0) return new_error("empty program");
  if (strncmp(a->program->code, "fail", 4) == 0) return new_error("compile failed: bad program");
  compiles++;
  a->executable = new_loaded(a->program->code, a->program->code_size);
  return NULL;
}

static PJRT_Error* get_executable(PJRT_LoadedExecutable_GetExecutable_Args* a) {
  PJRT_Executable* x = calloc(1, sizeof(PJRT_Executable));
  x->text = malloc(a->loaded_executable->exe.n + 1);
  memcpy(x->text, a->loaded_executable->exe.text, a->loaded_executable->exe.n);
  x->n = a->loaded_executable->exe.n;
  a->executable = x;
  return NULL;
}
static PJRT_Error* executable_destroy(PJRT_Executable_Destroy_Args* a) {
  free(a->executable->text);
  free(a->executable);
  return NULL;
}
static PJRT_Error* loaded_destroy(PJRT_LoadedExecutable_Destroy_Args* a) {
  free(a->executable->exe.text);
  free(a->executable);
  return NULL;
}

static void free_serialized(PJRT_SerializedExecutable* s) { free(s); }
static PJRT_Error* serialize(PJRT_Executable_Serialize_Args* a) {
  size_t n = sizeof(kPrefix) - 1 + a->executable->n;
  char* buf = malloc(n);
  memcpy(buf, kPrefix, sizeof(kPrefix) - 1);
  memcpy(buf + sizeof(kPrefix) - 1, a->executable->text, a->executable->n);
  a->serialized_bytes = buf;
  a->serialized_bytes_size = n;
  a->serialized_executable = (PJRT_SerializedExecutable*)buf;
  a->serialized_executable_deleter = free_serialized;
  return NULL;
}
static PJRT_Error* deserialize(PJRT_Executable_DeserializeAndLoad_Args* a) {
  size_t p = sizeof(kPrefix) - 1;
  if (a->serialized_executable_size < p || memcmp(a->serialized_executable, kPrefix, p) != 0) {
    return new_error("not a serialized executable of this plugin");
  }
  a->loaded_executable = new_loaded(a->serialized_executable + p, a->serialized_executable_size - p);
  return NULL;
}

static PJRT_Error* name(PJRT_Executable_Name_Args* a) {
  a->executable_name = a->executable->text;
  a->executable_name_size = a->executable->n;
  return NULL;
}
static PJRT_Error* num_outputs(PJRT_Executable_NumOutputs_Args* a) {
  a->num_outputs = 1;
  return NULL;
}
static PJRT_Error* memory_stats(PJRT_Executable_GetCompiledMemoryStats_Args* a) {
  a->temp_size_in_bytes = 1024;
  return NULL;
}

static PJRT_Api api;
const PJRT_Api* GetPjrtApi(void) {
  if (api.struct_size == 0) {
    api.struct_size = PJRT_Api_STRUCT_SIZE;
    api.pjrt_api_version.major_version = PJRT_API_MAJOR;
    api.pjrt_api_version.minor_version = PJRT_API_MINOR;
    api.PJRT_Error_Destroy = error_destroy;
    api.PJRT_Error_Message = error_message;
    api.PJRT_Client_Compile = client_compile;
    api.PJRT_LoadedExecutable_GetExecutable = get_executable;
    api.PJRT_Executable_Destroy = executable_destroy;
    api.PJRT_LoadedExecutable_Destroy = loaded_destroy;
    api.PJRT_Executable_Serialize = serialize;
    api.PJRT_Executable_DeserializeAndLoad = deserialize;
    api.PJRT_Executable_Name = name;
    api.PJRT_Executable_NumOutputs = num_outputs;
    api.PJRT_Executable_GetCompiledMemoryStats = memory_stats;
  }
  return &api;
}
