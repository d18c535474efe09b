package artifact_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gomlx-tutorials/trainopt/tutorial/artifact"
)

// SafeName is the one function that turns a device, date or step name into a file name.
func ExampleSafeName() {
	for _, s := range []string{"CPU (2 cores)", "13@512+dw-input-grad=phases", "2026-12-03"} {
		fmt.Println(artifact.SafeName(s))
	}
	// Output:
	// cpu-2-cores
	// 13-512-dw-input-grad-phases
	// 2026-12-03
}

// DeviceName is a GPU's name as results and profile folders carry it.
func ExampleDeviceName() {
	fmt.Println(artifact.DeviceName("NVIDIA H200"))
	fmt.Println(artifact.DeviceName("CPU (2 cores)"))
	// Output:
	// h200
	// cpu-2-cores
}

// WriteJSON writes atomically (a temporary file renamed into place); every artifact carries its Conditions.
func ExampleWriteJSON() {
	dir, err := os.MkdirTemp("", "artifact-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	c := artifact.Now() // date, time, versions, revision, host cores; the caller adds GPU, backend and data
	c.GPU, c.Data, c.Synthetic = "CPU (2 cores)", "synthetic CIFAR-10 stand-in", true
	path := filepath.Join(dir, "run", "conditions.json") // missing folders are created
	if err := artifact.WriteJSON(path, c); err != nil {
		panic(err)
	}
	var back artifact.Conditions
	if err := artifact.ReadJSON(path, &back); err != nil {
		panic(err)
	}
	fmt.Println(back.GPU, back.DataKind(), back.Date == c.Date)
	// Output:
	// CPU (2 cores) SYNTHETIC data true
}
