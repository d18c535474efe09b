package cifar_test

import (
	"fmt"
	"os"

	"github.com/gomlx-tutorials/trainopt/tutorial/cifar"
)

// Synthetic is the deterministic, learnable stand-in for CIFAR-10, shaped exactly like it.
func ExampleSynthetic() {
	train, test := cifar.Synthetic(100, 20, cifar.SyntheticSeed)
	fmt.Println(train.Len(), test.Len(), train.Synthetic, len(train.Image(0)), "bytes per image")
	fmt.Println("class counts:", train.ClassCounts())
	fmt.Println(train.Source)
	// Output:
	// 100 20 true 3072 bytes per image
	// class counts: [10 10 10 10 10 10 10 10 10 10]
	// synthetic CIFAR-10 stand-in (seed 1234) [train]
}

// LoadOrSynthetic reads CIFAR-10 from a folder, or — when the folder holds none — generates the stand-in, and
// says so in Set.Synthetic: what every command and notebook does when data/ is empty.
func ExampleLoadOrSynthetic() {
	dir, err := os.MkdirTemp("", "cifar-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	train, test, err := cifar.LoadOrSynthetic(dir, 2000, 500)
	if err != nil {
		panic(err)
	}
	fmt.Println(train.Len(), test.Len(), "synthetic:", train.Synthetic)
	// Output:
	// 2000 500 synthetic: true
}

// NormalizeValue is torchvision's ToTensor + Normalize((0.5,)*3, (0.5,)*3) on one pixel byte.
func ExampleNormalizeValue() {
	fmt.Println(cifar.NormalizeValue(0), cifar.NormalizeValue(255), cifar.NormalizeValue(128))
	// Output:
	// -1 1 0.003921628
}

// A Resizer upsamples 32×32 images exactly as PIL's bilinear resize (torchvision's T.Resize) does.
func ExampleResizer() {
	set, _ := cifar.Synthetic(1, 0, cifar.SyntheticSeed)
	r := cifar.NewResizer(cifar.DefaultSize)
	dst := make([]uint8, r.OutputSize())
	r.Resize(dst, set.Image(0))
	fmt.Println(len(set.Image(0)), "→", len(dst), "bytes")
	// Output:
	// 3072 → 150528 bytes
}

// A Sampler cuts each epoch's permutation into batches, like a DataLoader's sampler with drop_last.
func ExampleSampler_Batches() {
	s := cifar.Sampler{N: 10, BatchSize: 4, Seed: 1, DropLast: true} // no Shuffle: indices in order
	for b, idx := range s.Batches(0) {
		fmt.Println(b, idx)
	}
	fmt.Println(s.NumBatches(), "batches per epoch")
	// Output:
	// 0 [0 1 2 3]
	// 1 [4 5 6 7]
	// 2 batches per epoch
}
