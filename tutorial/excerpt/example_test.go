package excerpt_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gomlx-tutorials/trainopt/tutorial/excerpt"
)

// Sync regenerates every excerpt block of a document from the marked region of the Go file it names, so the code
// a notebook or README shows is the code that runs.
func ExampleSync() {
	root, err := os.MkdirTemp("", "excerpt-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(root)
	src := "package demo\n\nfunc double(x int) int {\n\t// excerpt: double\n\treturn 2 * x\n\t// excerpt end\n}\n"
	if err := os.WriteFile(filepath.Join(root, "demo.go"), []byte(src), 0o644); err != nil {
		panic(err)
	}

	doc := "The rule:\n<!-- excerpt: demo.go double -->\n(stale)\n<!-- end excerpt -->\n"
	out, n, err := excerpt.Sync(doc, root)
	if err != nil {
		panic(err)
	}
	fmt.Println(n, "block")
	fmt.Print(out)
	// Output:
	// 1 block
	// The rule:
	// <!-- excerpt: demo.go double -->
	// ```go
	// return 2 * x
	// ```
	// <!-- end excerpt -->
}
