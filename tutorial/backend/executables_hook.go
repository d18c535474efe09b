//go:build cgo && linux

package backend

// The Go function the patched PJRT_Client_Compile calls (executables_cgo.go). cgo allows no C definitions in a
// file with //export, so this file only declares.

/*
#cgo CFLAGS: -I${SRCDIR}/pjrtc
#include "pjrt_c_api.h"
*/
import "C"

//export ecCompileHook
func ecCompileHook(args *C.PJRT_Client_Compile_Args) *C.PJRT_Error {
	cache := activeCache.Load()
	if cache == nil {
		return compileWithoutCache(args)
	}
	return compileThroughCache(cache, args)
}
