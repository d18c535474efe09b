package memory

// Memory, the XLA way. PyTorch's tutorial reads torch.cuda.max_memory_allocated(); XLA knows more, earlier: when it
// compiles a program it fixes every buffer, and PJRT_Executable_GetCompiledMemoryStats reports the sizes
// (xla::CompiledMemoryStats): arguments, outputs, aliased (donated) bytes, temporaries and generated code, on device
// and on host. go-xla v0.4.13 calls it once per compiled program and keeps the result in the exported fields
// pjrt.LoadedExecutable.OnDeviceMemoryUsageStats / OnHostMemoryUsageStats (pjrt/loadedexecutables.go). The
// LoadedExecutable itself sits in an unexported field (exec) of go-xla's compute/xla.Executable, the value GoMLX
// returns from graph.Graph.Executable(); CompiledMemory reaches it by reflection, by field name, and fails with
// a clear error if the layout differs (another backend, another go-xla version).
//
// Allocated memory, as opposed to planned memory, comes from PJRT_Device_MemoryStats (bytes_in_use,
// peak_bytes_in_use, bytes_limit, pool_bytes, ... of the plugin's allocator). go-xla v0.4.13 does not wrap it, so
// DeviceMemory calls it through cgo with the PJRT_Api and PJRT_Device pointers held, unexported, by go-xla's
// Backend (plugin.api, client.addressableDevices[i].cDevice).
//
// Why nvidia-smi lies: XLA's GPU client, left to its defaults, preallocates memory_fraction = 75% of the GPU with its
// BFC allocator when the client is created, so nvidia-smi (and NVML's "used") shows ~75% whatever the model.
// go-xla v0.4.13 (compute/xla/xla.go, NewWithOptions) passes preallocate=false to plugins whose name or path
// contains "cuda" or "nvidia", so GOMLX_BACKEND="xla:/abs/path/xla_cuda_plugin.so" already runs without
// preallocation; write it out to be explicit and version-proof: GOMLX_BACKEND="xla:/abs/path/xla_cuda_plugin.so,preallocate=false".
// The other options go-xla parses: memory_fraction=<float>, allocator=default|bfc|cuda_async|platform|vmm,
// visible_devices=0;1, use_tfrt_gpu_client=<bool>, tf32=<bool>, shared_buffers=<bool> ("no<option>" means false).
// Even without preallocation the BFC allocator keeps what it grew to, so "used" is a high-water mark of the pool,
// not live tensors: use PeakBytesInUse, or the compiled sizes, to reason about batch size.

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"

	"github.com/gomlx-tutorials/trainopt/tutorial/profile/internal/xlareflect"
)

// Usage mirrors one side (device or host) of xla::CompiledMemoryStats, in bytes.
type Usage struct {
	GeneratedCode int64 `json:"generated_code"`
	Arguments     int64 `json:"arguments"`
	Outputs       int64 `json:"outputs"`
	Aliases       int64 `json:"aliases"` // Output bytes that reuse (donated) argument buffers.
	Temporary     int64 `json:"temporary"`
}

// Total is the memory the program needs while it runs: code + arguments + outputs − aliased + temporaries.
func (m Usage) Total() int64 {
	return m.GeneratedCode + m.Arguments + m.Outputs - m.Aliases + m.Temporary
}

// Stats are the compiled memory statistics of one executable.
type Stats struct {
	Name   string `json:"name,omitempty"`
	Device Usage  `json:"device"`
	Host   Usage  `json:"host"`
}

// Compiled returns the compiled memory statistics of a GoMLX executable on the XLA backend. exec is the
// compute.Executable returned by graph.Graph.Executable(), or anything with an Executable() method returning it
// (such as the *graph.Graph itself).
func Compiled(exec any) (Stats, error) {
	v := reflect.ValueOf(exec)
	if v.IsValid() {
		if m := v.MethodByName("Executable"); m.IsValid() && m.Type().NumIn() == 0 && m.Type().NumOut() == 1 {
			v = m.Call(nil)[0]
		}
	}
	v = xlareflect.Concrete(v)
	notXLA := fmt.Errorf("compiled memory statistics need an XLA-backend executable (go-xla compute/xla.Executable), got %T", exec)
	s, ok := xlareflect.StructOf(v)
	if !ok {
		return Stats{}, notXLA
	}
	loaded, ok := xlareflect.StructOf(s.FieldByName("exec"))
	if !ok {
		return Stats{}, notXLA
	}
	dev, okDev := memoryUsageOf(loaded.FieldByName("OnDeviceMemoryUsageStats"))
	host, okHost := memoryUsageOf(loaded.FieldByName("OnHostMemoryUsageStats"))
	if !okDev || !okHost {
		return Stats{}, fmt.Errorf("%T: the loaded executable has no OnDevice/OnHostMemoryUsageStats (go-xla version mismatch?)", exec)
	}
	st := Stats{Device: dev, Host: host}
	if name := s.FieldByName("name"); name.IsValid() && name.Kind() == reflect.String {
		st.Name = name.String()
	}
	runtime.KeepAlive(exec)
	return st, nil
}

// memoryUsageOf reads go-xla's pjrt.ExecutableMemoryUsageStats{GeneratedCode, Inputs, Outputs, Aliases, Temporary}.
func memoryUsageOf(v reflect.Value) (Usage, bool) {
	if !v.IsValid() || v.Kind() != reflect.Struct {
		return Usage{}, false
	}
	get := func(name string) (int64, bool) {
		f := v.FieldByName(name)
		if !f.IsValid() || f.Kind() != reflect.Int64 {
			return 0, false
		}
		return f.Int(), true
	}
	var m Usage
	var ok [5]bool
	m.GeneratedCode, ok[0] = get("GeneratedCode")
	m.Arguments, ok[1] = get("Inputs")
	m.Outputs, ok[2] = get("Outputs")
	m.Aliases, ok[3] = get("Aliases")
	m.Temporary, ok[4] = get("Temporary")
	return m, ok == [5]bool{true, true, true, true, true}
}

// DeviceStats are the plugin allocator's statistics (PJRT_Device_MemoryStats). Optional values the plugin did
// not set are -1.
type DeviceStats struct {
	BytesInUse        int64 `json:"bytes_in_use"`
	PeakBytesInUse    int64 `json:"peak_bytes_in_use"`
	NumAllocs         int64 `json:"num_allocs"`
	LargestAlloc      int64 `json:"largest_alloc_size"`
	BytesLimit        int64 `json:"bytes_limit"`
	BytesReserved     int64 `json:"bytes_reserved"`
	PeakBytesReserved int64 `json:"peak_bytes_reserved"`
	PoolBytes         int64 `json:"pool_bytes"`
	PeakPoolBytes     int64 `json:"peak_pool_bytes"`
}

// Point is the memory a program needs at one batch size (e.g. MemoryStats.Device.Total()).
type Point struct {
	Batch int   `json:"batch"`
	Bytes int64 `json:"bytes"`
}

// Model is memory as an affine function of the batch size: parameters, optimizer state and code are fixed;
// activations, their gradients and the input batch grow with each sample.
type Model struct {
	FixedBytes     float64 `json:"fixed_bytes"`
	PerSampleBytes float64 `json:"per_sample_bytes"`
}

// Bytes predicts the memory at a batch size.
func (m Model) Bytes(batch int) float64 { return m.FixedBytes + m.PerSampleBytes*float64(batch) }

// Fit fits a MemoryModel by least squares to two or more points with distinct batch sizes.
func Fit(points []Point) (Model, error) {
	distinct := map[int]bool{}
	var sx, sy, sxx, sxy float64
	for _, p := range points {
		distinct[p.Batch] = true
		x, y := float64(p.Batch), float64(p.Bytes)
		sx += x
		sy += y
		sxx += x * x
		sxy += x * y
	}
	if len(distinct) < 2 {
		return Model{}, errors.New("memory model needs measurements at two or more distinct batch sizes")
	}
	n := float64(len(points))
	slope := (n*sxy - sx*sy) / (n*sxx - sx*sx)
	return Model{FixedBytes: (sy - slope*sx) / n, PerSampleBytes: slope}, nil
}

// MaxBatch is the largest batch whose predicted memory fits in deviceBytes×(1−headroom); 0 if none does or the
// model does not grow with the batch.
func (m Model) MaxBatch(deviceBytes int64, headroom float64) int {
	if m.PerSampleBytes <= 0 || headroom < 0 || headroom >= 1 || deviceBytes <= 0 {
		return 0
	}
	budget := float64(deviceBytes) * (1 - headroom)
	b := math.Floor((budget - m.FixedBytes) / m.PerSampleBytes)
	if b < 1 || math.IsNaN(b) {
		return 0
	}
	if b > math.MaxInt32 {
		return math.MaxInt32
	}
	return int(b)
}

// PredictMaxBatch fits memory = fixed + per_sample×batch to the points and returns the largest batch that fits in
// deviceBytes while leaving the headroom fraction (e.g. 0.1) free. It returns 0 when the points cannot predict
// (fewer than two distinct batch sizes, memory not growing with the batch) or nothing fits.
func PredictMaxBatch(points []Point, deviceBytes int64, headroom float64) int {
	m, err := Fit(points)
	if err != nil {
		return 0
	}
	return m.MaxBatch(deviceBytes, headroom)
}
