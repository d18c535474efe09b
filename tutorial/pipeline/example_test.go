package pipeline_test

import (
	"fmt"

	"github.com/gomlx/compute/gobackend"

	"github.com/gomlx-tutorials/trainopt/tutorial/cifar"
	"github.com/gomlx-tutorials/trainopt/tutorial/pipeline"
)

// A Source with no workers builds each batch when asked, in the caller's goroutine (DataLoader's num_workers=0):
// here the baseline's float32 batches, resized and normalised on the host, from a small synthetic set.
func ExampleNew() {
	set, _ := cifar.Synthetic(64, 0, cifar.SyntheticSeed)
	cfg := pipeline.Config{Format: pipeline.Float32, Batch: 8, Size: 40}
	src, err := pipeline.New(set, cfg, nil) // no backend: the batches stay on the host
	if err != nil {
		panic(err)
	}
	defer src.Close()
	for range 3 {
		b, err := src.Next()
		if err != nil {
			panic(err)
		}
		fmt.Println(b.X.Shape(), b.Labels.Shape(), "on device:", b.OnDevice)
	}
	fmt.Println(cfg.Bytes(), "bytes per batch")
	// Output:
	// (Float32)[8, 40, 40, 3] (Int32)[8] on device: false
	// (Float32)[8, 40, 40, 3] (Int32)[8] on device: false
	// (Float32)[8, 40, 40, 3] (Int32)[8] on device: false
	// 153632 bytes per batch
}

// With workers and Upload, two goroutines build the 32×32 uint8 batches and copy them to the device while the
// step computes (the pin_memory + non_blocking analogue): Next finds the batch there and spends no time copying.
func ExampleSource_Next() {
	backend, err := gobackend.New("")
	if err != nil {
		panic(err)
	}
	defer backend.Finalize()
	set, _ := cifar.Synthetic(64, 0, cifar.SyntheticSeed)
	cfg := pipeline.Config{Format: pipeline.Uint8Small, Batch: 16, Workers: 2, Upload: true}
	src, err := pipeline.New(set, cfg, backend)
	if err != nil {
		panic(err)
	}
	defer src.Close()
	b, err := src.Next()
	if err != nil {
		panic(err)
	}
	fmt.Println(b.X.Shape(), "on device:", b.OnDevice, "copied by Next:", b.Transfer > 0)
	// Output:
	// (Uint8)[16, 32, 32, 3] on device: true copied by Next: false
}
