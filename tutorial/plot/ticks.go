package plot

import (
	"math"
	"strconv"

	gplot "gonum.org/v1/plot"
)

// niceTicks places five to seven labelled ticks at round values (1, 2, 2.5 or
// 5 × 10^k). gonum's default ticker labels as few as three ticks at values
// such as 0.25, 1.25, 2.25, which are hard to read off.
type niceTicks struct{}

// Ticks implements plot.Ticker.
func (niceTicks) Ticks(lo, hi float64) []gplot.Tick {
	if !(hi > lo) || !finite(lo, hi) {
		return nil
	}
	// Aim for five intervals, accepting up to ~6.5 rather than jumping to a
	// step so large that only three ticks remain.
	step, decimals := niceStep((hi - lo) / 5 * 0.75)
	var ticks []gplot.Tick
	first := math.Ceil(lo/step-1e-9) * step
	for i := 0; ; i++ {
		v := first + float64(i)*step
		if v > hi+step*1e-9 {
			break
		}
		if math.Abs(v) < step*1e-9 {
			v = 0 // no "-0"
		}
		ticks = append(ticks, gplot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', decimals, 64)})
	}
	return ticks
}

// niceStep rounds raw up to a 1-2-2.5-5 step and returns the number of
// decimals needed to print its multiples exactly.
func niceStep(raw float64) (step float64, decimals int) {
	exp := math.Floor(math.Log10(raw))
	mag := math.Pow(10, exp)
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if raw <= m*mag*(1+1e-9) {
			step = m * mag
			decimals = max(0, -int(exp))
			if m == 2.5 {
				decimals++
			}
			if m == 10 {
				decimals = max(0, decimals-1)
			}
			return step, decimals
		}
	}
	return 10 * mag, max(0, -int(exp)-1)
}
