package mobilenet_test

import (
	"fmt"

	"github.com/gomlx-tutorials/trainopt/tutorial/mobilenet"
)

// New lays out torchvision's mobilenet_v2(num_classes=10): the same parameters, in the same order, under
// state_dict's names.
func ExampleNew() {
	m := mobilenet.New(mobilenet.Default())
	fmt.Println(m.NumTrainable(), "trainable parameters")
	first, last := m.Params[0], m.Params[len(m.Params)-1]
	fmt.Println(first.Name, first.Shape)
	fmt.Println(last.Name, last.Shape)

	small := mobilenet.Default()
	small.Width = 0.25 // torchvision's width_mult: what the CPU tests and smoke runs use
	fmt.Println(mobilenet.New(small).NumTrainable(), "at width 0.25")
	// Output:
	// 2236682 trainable parameters
	// features.0.0.weight [3 3 3 32]
	// classifier.1.bias [10]
	// 250922 at width 0.25
}

// SetFormulation changes how the network is computed — kernels and summation order, never its parameters —
// from the text form the CLI's -model flag takes; Formulation writes it back.
func ExampleConfig_SetFormulation() {
	c := mobilenet.Default()
	fmt.Printf("%q\n", c.Formulation())
	if err := c.SetFormulation("relu6=masked,dw-input-grad=shifted"); err != nil {
		panic(err)
	}
	fmt.Println(c.MaskedReLU6, c.Depthwise.Input)
	fmt.Println(c.Formulation())
	fmt.Println(c.SetFormulation("relu6=fast"))
	// Output:
	// ""
	// true shifted
	// relu6=masked,dw-input-grad=shifted
	// model formulation "relu6=fast": relu6 is one of clip, masked
}
