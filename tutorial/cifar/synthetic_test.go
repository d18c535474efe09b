package cifar

import (
	"bytes"
	"math"
	"testing"
)

func TestSyntheticDeterministic(t *testing.T) {
	a, at := Synthetic(300, 50, 3)
	b, bt := Synthetic(300, 50, 3)
	equalSets(t, a, b)
	equalSets(t, at, bt)
	c, _ := Synthetic(300, 50, 4)
	if bytes.Equal(a.Images, c.Images) {
		t.Error("different seeds give the same images")
	}
	if !a.Synthetic || a.Validate() != nil {
		t.Error("synthetic set not flagged or invalid")
	}
	for cl, n := range a.ClassCounts() {
		if n != 30 {
			t.Errorf("class %d: %d images, want 30 (balanced)", cl, n)
		}
	}
	if bytes.Equal(a.Labels[:10], []uint8{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) {
		t.Error("labels not shuffled")
	}
}

// TestSyntheticStatistics checks the generator against its specification:
// residuals around the class template have mean ≈ 0 and σ ≈ 40 (a little
// less because of clipping).
func TestSyntheticStatistics(t *testing.T) {
	train, _ := Synthetic(200, 0, 11)
	p := newSynthParams(11)
	var sum, sum2 float64
	var n int
	for i := range train.N {
		base := &p.base[train.Labels[i]]
		for k, v := range train.Image(i) {
			if b := float64(base[k]); b > 100 && b < 155 { // far from clipping
				d := float64(v) - b
				sum += d
				sum2 += d * d
				n++
			}
		}
	}
	mean := sum / float64(n)
	std := math.Sqrt(sum2/float64(n) - mean*mean)
	if math.Abs(mean) > 1 || std < 37 || std > 41 {
		t.Errorf("residual mean %.2f, std %.2f over %d values; want ≈0 and ≈40", mean, std, n)
	}
}

// TestSyntheticLearnable: a nearest-class-mean classifier on each image's
// mean colour — about the weakest model there is — must beat chance (10%)
// clearly, so a training run on synthetic data can show learning.
func TestSyntheticLearnable(t *testing.T) {
	train, test := Synthetic(2000, 500, 1)
	meanColour := func(img []uint8) (m [Channels]float64) {
		for p := 0; p < len(img); p += Channels {
			for c := range Channels {
				m[c] += float64(img[p+c])
			}
		}
		for c := range m {
			m[c] /= Height * Width
		}
		return m
	}
	var centroid [NumClasses][Channels]float64
	var count [NumClasses]float64
	for i := range train.N {
		m := meanColour(train.Image(i))
		l := train.Label(i)
		for c := range Channels {
			centroid[l][c] += m[c]
		}
		count[l]++
	}
	for l := range centroid {
		for c := range Channels {
			centroid[l][c] /= count[l]
		}
	}
	correct := 0
	for i := range test.N {
		m := meanColour(test.Image(i))
		best, bestD := -1, math.Inf(1)
		for l := range centroid {
			d := 0.0
			for c := range Channels {
				d += (m[c] - centroid[l][c]) * (m[c] - centroid[l][c])
			}
			if d < bestD {
				best, bestD = l, d
			}
		}
		if best == test.Label(i) {
			correct++
		}
	}
	acc := float64(correct) / float64(test.N)
	t.Logf("nearest-class-mean accuracy on mean colours: %.1f%%", 100*acc)
	if acc < 0.3 {
		t.Errorf("accuracy %.1f%%, want clearly above 10%%", 100*acc)
	}
}
