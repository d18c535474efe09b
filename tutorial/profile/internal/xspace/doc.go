// Package xspace decodes the XSpace that XLA's profiler returns (tensorflow.profiler.XSpace, a serialized
// protobuf) and reads its GPU planes. It is internal to tutorial/profile: its types follow xla/tsl's
// xplane.proto field by field, so they change when XLA's do, and only tutorial/profile turns them into the
// numbers a reader sees.
//
// Files:
//
//   - xspace.go: the plain Go mirror ([XSpace], [XPlane], [XLine], [XEvent], [XStat], metadata) and
//     [DecodeXSpace], which reads the bytes with protoc-gen-go's code for xplane.proto
//     (tutorial/internal/xlaproto/xplanepb, generated once and committed) and converts them to the mirror.
//   - gpuevents.go: what XLA's CUDA tracer writes on a "/device:GPU:<n>" plane, read into [GPUDevice]s:
//     kernels, copies and memsets per stream ([GPUEvent], [EventKind]) and the device's [DeviceInfo].
//   - xspacetest: the test XSpace, built with the generated types, that the tests of this package and of
//     tutorial/profile decode.
package xspace
