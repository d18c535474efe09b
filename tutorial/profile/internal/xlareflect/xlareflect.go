// Package xlareflect holds the steps by which tutorial/profile (DeviceMemory: the backend's plugin, client and
// devices) and tutorial/profile/memory (Compiled: an executable's compiled memory statistics) walk go-xla's
// unexported fields by reflection: go-xla exposes neither, and both walks take the same three steps. Internal
// because the fields it is used on are go-xla's, and may change with any go-xla version.
package xlareflect

import "reflect"

// Concrete is the value inside v, through any interfaces (a compute.Backend holding a *xla.Backend).
func Concrete(v reflect.Value) reflect.Value {
	for v.IsValid() && v.Kind() == reflect.Interface {
		v = v.Elem()
	}
	return v
}

// NonNilPointer reports whether v is a pointer, and not nil.
func NonNilPointer(v reflect.Value) bool {
	return v.IsValid() && v.Kind() == reflect.Pointer && !v.IsNil()
}

// StructOf dereferences a non-nil pointer to a struct.
func StructOf(v reflect.Value) (reflect.Value, bool) {
	if !NonNilPointer(v) {
		return reflect.Value{}, false
	}
	s := v.Elem()
	return s, s.Kind() == reflect.Struct
}
