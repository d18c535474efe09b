// A fake PJRT plugin for the tests of StartCapture/Stop on a machine without a GPU: it exports GetPjrtApi,
// chains a Stream extension (type 3) and then a Profiler extension (type 1), and its profiler returns the XSpace
// given at build time (-DSPACE_FILE="..." containing "static const unsigned char kSpace[] = {...};"), followed by
// a hostnames entry (XSpace field 4) holding the ProfileOptions bytes it was created with, plus a trailing NUL —
// as the H200 plugin appends one. With -DFAIL_START its start() fails with an error carrying a message and code.
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include SPACE_FILE

typedef struct Ext { size_t struct_size; int type; struct Ext* next; } Ext;
typedef struct { size_t struct_size; Ext* extension_start; int major_version; int minor_version; } Version;
typedef struct { size_t struct_size; Ext* extension_start; Version version; void* fns[120]; } Api;

typedef struct { char msg[64]; int code; } Error;
typedef struct { unsigned char* buf; size_t n; unsigned char opts[256]; size_t opts_n; } Profiler;

typedef struct { size_t struct_size; void* priv; Error* error; } ErrDestroyArgs;
typedef struct { size_t struct_size; void* priv; const Error* error; const char* message; size_t message_size; } ErrMessageArgs;
typedef struct { size_t struct_size; void* priv; const Error* error; int code; } ErrCodeArgs;
typedef struct { size_t struct_size; const char* options; size_t options_size; Profiler* profiler; } CreateArgs;
typedef struct { size_t struct_size; Profiler* profiler; } ProfArgs;
typedef struct { size_t struct_size; Profiler* profiler; uint8_t* buffer; size_t buffer_size_in_bytes; } CollectArgs;

static Error* new_error(const char* msg, int code) {
  Error* e = calloc(1, sizeof(Error));
  strncpy(e->msg, msg, sizeof(e->msg) - 1);
  e->code = code;
  return e;
}
static void error_destroy(ErrDestroyArgs* a) { free(a->error); }
static void error_message(ErrMessageArgs* a) { a->message = a->error->msg; a->message_size = strlen(a->error->msg); }
static Error* error_get_code(ErrCodeArgs* a) { a->code = a->error->code; return NULL; }
static Error* create(CreateArgs* a) {
  if (a->options_size == 0 || a->options_size > 100) return new_error("bad options", 3);
  Profiler* p = calloc(1, sizeof(Profiler));
  memcpy(p->opts, a->options, a->options_size);
  p->opts_n = a->options_size;
  a->profiler = p;
  return NULL;
}
static Error* destroy(ProfArgs* a) { free(a->profiler->buf); free(a->profiler); return NULL; }
static Error* start(ProfArgs* a) {
#ifdef FAIL_START
  return new_error("CUPTI could not be initialized", 9);
#else
  return NULL;
#endif
}
static Error* stop(ProfArgs* a) { return NULL; }
static Error* collect_data(CollectArgs* a) {
  Profiler* p = a->profiler;
  if (a->buffer != NULL) return new_error("expected a NULL buffer", 3);
  size_t n = sizeof(kSpace) + 2 + p->opts_n + 1;
  p->buf = calloc(1, n);
  memcpy(p->buf, kSpace, sizeof(kSpace));
  p->buf[sizeof(kSpace)] = 0x22;  // Field 4 (hostnames), wire type 2.
  p->buf[sizeof(kSpace) + 1] = (unsigned char)p->opts_n;
  memcpy(p->buf + sizeof(kSpace) + 2, p->opts, p->opts_n);
  a->buffer = p->buf;
  a->buffer_size_in_bytes = n;  // Includes the trailing NUL.
  return NULL;
}

static struct {
  size_t struct_size; void* priv;
  void* error_destroy; void* error_message; void* error_get_code; void* create; void* destroy; void* start;
  void* stop; void* collect_data; void* consume; void* serialize; void* consume_result_destroy;
} profiler_api = {104, NULL, error_destroy, error_message, error_get_code, create, destroy, start, stop, collect_data,
                  NULL, NULL, NULL};

static struct { size_t struct_size; int type; Ext* next; void* profiler_api; int64_t traceme_context_id; } profiler_ext =
    {40, 1, NULL, &profiler_api, 0};
static Ext stream_ext = {24, 3, (Ext*)&profiler_ext};
static Api api = {sizeof(Api), &stream_ext, {24, NULL, 0, 115}, {0}};

const Api* GetPjrtApi(void) { return &api; }
