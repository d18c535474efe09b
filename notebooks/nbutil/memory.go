package nbutil

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gomlx-tutorials/trainopt/tutorial/ladder"
	"github.com/gomlx-tutorials/trainopt/tutorial/plot"
	"github.com/gomlx-tutorials/trainopt/tutorial/profile/memory"
)

// MaxBatch shows the recorded checks of the largest-batch prediction: the memory model fitted to compiled
// statistics, the predicted maximum, and the batches run just below and above it.
func MaxBatch() { withRoot(func(root string) { ShowMaxBatch(root) }) }

// ShowMaxBatch is [MaxBatch] with the repository root given.
func ShowMaxBatch(root string) {
	recs, bad := ladder.RecordedMaxBatches(root)
	for _, b := range bad {
		printf("note: skipped a memory check: %s\n", b)
	}
	if len(recs) == 0 {
		printf("recorded max-batch checks: none in %s yet (`trainopt memory` on a GPU writes them)\n",
			filepath.Join(root, "assets", "profiles"))
		return
	}
	for _, r := range recs {
		c := r.Check
		printf("recorded max-batch check: %s — step %s, memory = %.0f MB + %.2f MB × batch (fitted at %s), allocator "+
			"limit %.2f GB → predicted max batch %d\n", filepath.Base(r.Dir), r.Step, c.Model.FixedBytes/1e6,
			c.Model.PerSampleBytes/1e6, batchesOf(c.Points), float64(c.LimitBytes)/1e9, c.Predicted)
		displayHTML(plot.HTMLTable(memory.TrialHeaders, c.TrialRows(), c.Verdict()+" — "+oneLine(r.Backend)))
	}
}

func batchesOf(points []memory.Point) string {
	var s []string
	for _, p := range points {
		s = append(s, fmt.Sprint(p.Batch))
	}
	return strings.Join(s, " and ")
}
