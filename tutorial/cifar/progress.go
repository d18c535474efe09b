package cifar

import (
	"fmt"
	"io"
	"time"
)

// progressWriter counts the bytes written through it and prints a status
// line at most every interval (plus a final one), so a multi-minute
// download shows it is alive without flooding logs: bytes so far / total,
// percent, average rate and time left.
type progressWriter struct {
	w           io.Writer
	total, done int64
	start, last time.Time
	every       time.Duration
	now         func() time.Time
}

func newProgressWriter(w io.Writer, total int64, every time.Duration, now func() time.Time) *progressWriter {
	t := now()
	return &progressWriter{w: w, total: total, start: t, last: t, every: every, now: now}
}

func (p *progressWriter) Write(b []byte) (int, error) {
	p.done += int64(len(b))
	if t := p.now(); t.Sub(p.last) >= p.every {
		p.last = t
		fmt.Fprintln(p.w, p.line(t))
	}
	return len(b), nil
}

// finish prints the final line, whatever the interval.
func (p *progressWriter) finish() {
	fmt.Fprintln(p.w, p.line(p.now()))
}

func (p *progressWriter) line(t time.Time) string {
	elapsed := t.Sub(p.start).Seconds()
	rate := 0.0
	if elapsed > 0 {
		rate = float64(p.done) / elapsed
	}
	s := fmt.Sprintf("cifar:   %s / %s", megabytes(p.done), megabytes(p.total))
	if p.total > 0 {
		s += fmt.Sprintf(" (%5.1f%%)", 100*float64(p.done)/float64(p.total))
	}
	s += fmt.Sprintf("  %s/s", megabytes(int64(rate)))
	switch {
	case p.done >= p.total:
		s += fmt.Sprintf("  done in %s", time.Duration(elapsed*float64(time.Second)).Round(100*time.Millisecond))
	case rate > 0:
		left := time.Duration(float64(p.total-p.done) / rate * float64(time.Second))
		s += fmt.Sprintf("  about %s left", left.Round(time.Second))
	}
	return s
}

func megabytes(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }
