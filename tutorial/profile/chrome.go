package profile

// The Chrome trace-event JSON format (https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU)
// is what Perfetto (ui.perfetto.dev) and chrome://tracing open without any plugin, so a tutorial reader can look
// at the GPU timeline with nothing installed. XProf/TensorBoard read the raw XSpace instead (writeXPlane).
//
// Mapping: one process ("pid") per XPlane, one thread ("tid") per XLine, one complete event ("ph":"X") per XEvent
// with ts/dur in µs, args from the event's and its metadata's stats. Timestamps are relative to the earliest line
// of the space (absolute µs since 1970 lose sub-µs precision in a float64); the base is in "otherData".
// A training-step capture can hold millions of events, so the output is capped (chromeOptions.MaxEvents): device
// planes are written first, and a truncated trace says so in "otherData" and in a process named "TRUNCATED".

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/gomlx-tutorials/trainopt/tutorial/artifact"
	"github.com/gomlx-tutorials/trainopt/tutorial/profile/internal/xspace"
)

// defaultMaxChromeEvents bounds a Chrome trace to a size Perfetto opens quickly (~100 MB of JSON).
const defaultMaxChromeEvents = 300_000

// chromeOptions configure writeChromeTrace.
type chromeOptions struct {
	// MaxEvents caps the number of "X" events (0: DefaultMaxChromeEvents; negative: no cap).
	MaxEvents int
	// DeviceOnly skips host planes (keeps only "/device:" planes).
	DeviceOnly bool
}

// ChromeResult tells what was written.
type ChromeResult struct {
	Events    int  // "X" events written.
	Total     int  // "X" events in the space (of the planes considered).
	Truncated bool // Events < Total.
}

// writeChromeTrace writes the space as Chrome trace-event JSON.
func writeChromeTrace(w io.Writer, space *xspace.XSpace, opts chromeOptions) (ChromeResult, error) {
	var res ChromeResult
	maxEvents := opts.MaxEvents
	if maxEvents == 0 {
		maxEvents = defaultMaxChromeEvents
	}

	// Planes in output order: devices first (the point of the exercise), then the rest.
	var planes []*xspace.XPlane
	for _, p := range space.Planes {
		if opts.DeviceOnly && !strings.HasPrefix(p.Name, "/device:") {
			continue
		}
		planes = append(planes, p)
	}
	sort.SliceStable(planes, func(i, j int) bool {
		return strings.HasPrefix(planes[i].Name, "/device:") && !strings.HasPrefix(planes[j].Name, "/device:")
	})

	var baseNs int64 = math.MaxInt64
	for _, p := range planes {
		for _, l := range p.Lines {
			if len(l.Events) > 0 {
				baseNs = min(baseNs, l.TimestampNs)
			}
			res.Total += len(l.Events)
		}
	}
	if baseNs == math.MaxInt64 {
		baseNs = 0
	}

	bw := bufio.NewWriterSize(w, 1<<16)
	ew := &eventWriter{w: bw}
	ew.raw(`{"displayTimeUnit":"ns","traceEvents":[`)
	for pi, p := range planes {
		pid := pi + 1
		ew.meta("process_name", pid, 0, p.Name)
		ew.metaSortIndex("process_sort_index", pid, 0, pi)
		for li, l := range p.Lines {
			tid := li + 1
			name := l.DisplayName
			if name == "" {
				name = l.Name
			}
			if name == "" {
				name = "line " + strconv.FormatInt(l.ID, 10)
			}
			ew.meta("thread_name", pid, tid, name)
			ew.metaSortIndex("thread_sort_index", pid, tid, li)
			lineBaseNs := l.TimestampNs - baseNs
			for ei := range l.Events {
				if maxEvents >= 0 && res.Events >= maxEvents {
					res.Truncated = true
					break
				}
				e := &l.Events[ei]
				tsUs := float64(lineBaseNs)/1e3 + float64(e.OffsetPs)/1e6
				ew.event(p, e, pid, tid, tsUs)
				res.Events++
			}
		}
	}
	if res.Truncated {
		pid := len(planes) + 1
		ew.meta("process_name", pid, 0, fmt.Sprintf("TRUNCATED: %d of %d events written (ChromeOptions.MaxEvents)", res.Events, res.Total))
	}
	ew.raw(`],"otherData":{`)
	ew.raw(fmt.Sprintf(`"base_time_unix_ns":"%d","events_written":"%d","events_total":"%d","truncated":"%t"`,
		baseNs, res.Events, res.Total, res.Truncated))
	ew.raw("}}\n")
	if ew.err != nil {
		return res, ew.err
	}
	return res, bw.Flush()
}

type eventWriter struct {
	w     *bufio.Writer
	n     int
	err   error
	entry []byte
}

func (ew *eventWriter) raw(s string) {
	if ew.err == nil {
		_, ew.err = ew.w.WriteString(s)
	}
}

func (ew *eventWriter) sep() {
	if ew.n > 0 {
		ew.raw(",")
	}
	ew.n++
}

func (ew *eventWriter) meta(kind string, pid, tid int, name string) {
	ew.sep()
	ew.raw(fmt.Sprintf(`{"ph":"M","name":%q,"pid":%d,"tid":%d,"args":{"name":%s}}`, kind, pid, tid, jsonString(name)))
}

func (ew *eventWriter) metaSortIndex(kind string, pid, tid, index int) {
	ew.sep()
	ew.raw(fmt.Sprintf(`{"ph":"M","name":%q,"pid":%d,"tid":%d,"args":{"sort_index":%d}}`, kind, pid, tid, index))
}

func (ew *eventWriter) event(p *xspace.XPlane, e *xspace.XEvent, pid, tid int, tsUs float64) {
	ew.sep()
	b := ew.entry[:0]
	b = append(b, `{"ph":"X","name":`...)
	b = append(b, jsonString(p.EventName(e))...)
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, int64(pid), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(tid), 10)
	b = append(b, `,"ts":`...)
	b = strconv.AppendFloat(b, tsUs, 'f', 3, 64)
	b = append(b, `,"dur":`...)
	b = strconv.AppendFloat(b, float64(e.DurationPs)/1e6, 'f', 3, 64)
	md := p.EventMetadata[e.MetadataID]
	nStats := len(e.Stats)
	if md != nil {
		nStats += len(md.Stats)
	}
	if nStats > 0 {
		b = append(b, `,"args":{`...)
		first := true
		seen := map[string]bool{}
		add := func(s xspace.XStat) {
			name := p.StatName(s)
			if name == "" {
				name = "stat_" + strconv.FormatInt(s.MetadataID, 10)
			}
			if seen[name] {
				return
			}
			seen[name] = true
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, jsonString(name)...)
			b = append(b, ':')
			if v, ok := xspace.StatNumber(s); ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
				b = strconv.AppendFloat(b, v, 'g', -1, 64)
			} else {
				b = append(b, jsonString(p.StatString(s))...)
			}
		}
		for _, s := range e.Stats {
			add(s)
		}
		if md != nil {
			for _, s := range md.Stats {
				add(s)
			}
		}
		b = append(b, '}')
	}
	b = append(b, '}')
	ew.entry = b
	if ew.err == nil {
		_, ew.err = ew.w.Write(b)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s) // Never fails for a string; invalid UTF-8 becomes U+FFFD.
	return string(b)
}

// writeChromeTraceFile writes the trace to path, gzip-compressed when path ends in ".gz" (Perfetto opens both).
func writeChromeTraceFile(path string, space *xspace.XSpace, opts chromeOptions) (res ChromeResult, err error) {
	err = artifact.Write(path, func(f io.Writer) (err error) {
		if !strings.HasSuffix(path, ".gz") {
			res, err = writeChromeTrace(f, space, opts)
			return err
		}
		zw := gzip.NewWriter(f)
		res, err = writeChromeTrace(zw, space, opts)
		return errors.Join(err, zw.Close())
	})
	return res, err
}

// writeXPlane writes the raw serialized XSpace, as XProf/TensorBoard's profile plugin expects it:
// <logdir>/plugins/profile/<run>/<host>.xplane.pb. It returns the path written.
func writeXPlane(logdir, run, host string, raw []byte) (string, error) {
	if run == "" {
		run = "run"
	}
	if host == "" {
		host = "localhost"
	}
	path := filepath.Join(logdir, "plugins", "profile", run, host+".xplane.pb")
	return path, artifact.WriteFile(path, raw)
}
