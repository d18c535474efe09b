package cifar

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"time"
)

// Every file this package writes goes through a hidden temporary file in the destination folder, removed on any
// error: ".<name>.tmp-<pid>-<random>" for data files, ".cifar-10-binary.tar.gz.part-<pid>-<random>" for the
// download. A killed process cannot remove its own, so the data code's later runs (Load, Download,
// WriteSynthetic) remove those left behind: any whose process is gone, and any untouched for [StaleAfter] (files
// named before the process id was part of the name, or by a process on another machine sharing the folder).

// StaleAfter is how long a temporary file may sit unmodified before it counts as left behind. A live download
// writes every few milliseconds and gives up after a minute without data, so an hour is far beyond any live one.
const StaleAfter = time.Hour

// tempPattern is the os.CreateTemp pattern of a temporary file for base ("tmp" or "part"), with this process's id.
func tempPattern(base, kind string) string {
	return "." + base + "." + kind + "-" + strconv.Itoa(os.Getpid()) + "-*"
}

// reTemp matches tempPattern's names (and the older ones without a process id): group 1 is the process id.
var reTemp = regexp.MustCompile(`^\..+\.(?:tmp|part)-(?:(\d+)-)?\d+$`)

// cleanStale removes the temporary files left behind in dir (see above), saying so on progress (nil: silently).
// It is best effort: an unreadable folder or a file that cannot be removed is left as it is.
func cleanStale(dir string, progress io.Writer) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	now := time.Now()
	for _, e := range entries {
		m := reTemp.FindStringSubmatch(e.Name())
		if m == nil || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		why := ""
		if pid, err := strconv.Atoi(m[1]); err == nil && pid != os.Getpid() && !processAlive(pid) {
			why = fmt.Sprintf("its process %d is gone", pid)
		} else if age := now.Sub(info.ModTime()); age > StaleAfter {
			why = fmt.Sprintf("untouched for %s", age.Round(time.Minute))
		}
		if why == "" {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if os.Remove(p) == nil && progress != nil {
			fmt.Fprintf(progress, "cifar: removed %s (%s bytes), a temporary file an interrupted run left behind (%s)\n",
				p, commas(info.Size()), why)
		}
	}
}

// processAlive reports whether a process with this id exists (on this machine).
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}
