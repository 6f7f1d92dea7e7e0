package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// series is one scrape of a Prometheus text endpoint: value by "name{labels}".
type series map[string]float64

func scrape(url string) (series, error) {
	resp, err := insecure.Get(url)
	if err != nil {
		return nil, fmt.Errorf("scrape %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("scrape %s: HTTP %d", url, resp.StatusCode)
	}
	out, err := parseSeries(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("scrape %s: %w", url, err)
	}
	return out, nil
}

// parseSeries reads the Prometheus text format, one sample a line.
func parseSeries(r io.Reader) (series, error) {
	out := series{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
			out[line[:i]] = v
		}
	}
	return out, sc.Err()
}

// label is the value of one label in a series key, or "".
func label(key, name string) string {
	i := strings.Index(key, name+`="`)
	if i < 0 {
		return ""
	}
	rest := key[i+len(name)+2:]
	return rest[:strings.IndexByte(rest, '"')]
}

// sum adds the values of name whose labels contain every one of want (e.g. `verb="bind"`).
func (s series) sum(name string, want ...string) float64 {
	total := 0.0
	for k, v := range s {
		if k != name && !strings.HasPrefix(k, name+"{") {
			continue
		}
		if matches(k, want) {
			total += v
		}
	}
	return total
}

// meanMs is the mean in milliseconds of histogram or summary name between two scrapes.
func meanMs(before, after series, name string, want ...string) float64 {
	n := after.sum(name+"_count", want...) - before.sum(name+"_count", want...)
	if n == 0 {
		return 0
	}
	return 1000 * (after.sum(name+"_sum", want...) - before.sum(name+"_sum", want...)) / n
}

// quantileMs is the upper bound in milliseconds of the histogram bucket that holds quantile q of
// the observations between two scrapes (the extender's timers publish Prometheus buckets).
func quantileMs(before, after series, name string, q float64, want ...string) float64 {
	type bucket struct{ le, n float64 }
	var buckets []bucket
	for k := range after {
		if !strings.HasPrefix(k, name+"_bucket{") || !matches(k, want) {
			continue
		}
		i := strings.Index(k, `le="`)
		le, err := strconv.ParseFloat(k[i+4:strings.IndexByte(k[i+4:], '"')+i+4], 64)
		if err != nil {
			continue // +Inf
		}
		buckets = append(buckets, bucket{le, after[k] - before[k]})
	}
	sort.Slice(buckets, func(i, j int) bool { return buckets[i].le < buckets[j].le })
	total := after.sum(name+"_count", want...) - before.sum(name+"_count", want...)
	for _, b := range buckets {
		if total > 0 && b.n >= q*total {
			return 1000 * b.le
		}
	}
	return 0
}

func matches(k string, want []string) bool {
	for _, w := range want {
		if !strings.Contains(k, w) {
			return false
		}
	}
	return true
}

// cpuSeconds is utime+stime of a process (all its threads) from /proc/<pid>/stat.
func cpuSeconds(pid int) float64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	_, seconds := statCPU(string(raw))
	return seconds
}

// statCPU reads a /proc stat line: the command name (field 2, which may hold spaces and
// parentheses) and utime+stime in seconds.
func statCPU(s string) (string, float64) {
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open || end+2 > len(s) {
		return "", 0
	}
	f := strings.Fields(s[end+2:])
	if len(f) < 13 {
		return "", 0
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return s[open+1 : end], (ut + st) / 100 // USER_HZ is 100 on Linux
}

// controlPlanePid finds the process of binary (etcd, kube-apiserver) that e2e/control-plane started
// for this run: its command line names the run directory.
func controlPlanePid(binary, runDir string) int {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(raw), "\x00")
		if filepath.Base(args[0]) == binary && strings.Contains(string(raw), runDir) {
			return pid
		}
	}
	return 0
}

func loadAverage() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(raw))[0]
}

var gcPause = regexp.MustCompile(`Pause.* ([0-9.]+)ms$`)

// gcPauses counts the pauses logged to path after offset, and their total in milliseconds.
func gcPauses(path string, offset int64) (n int, totalMs float64, end int64) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, offset
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return 0, 0, offset
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := gcPause.FindStringSubmatch(sc.Text()); m != nil {
			v, _ := strconv.ParseFloat(m[1], 64)
			n++
			totalMs += v
		}
	}
	end, _ = f.Seek(0, io.SeekCurrent)
	return n, totalMs, end
}

// threadCPU is utime+stime by thread group of a process: each live thread's /proc/<pid>/task/<tid>/stat,
// grouped by its name without trailing digits (vert.x-eventloop-thread-0 and -1 are one group).
// "(whole process)" is the process's own total, so that threads that ended between two readings
// show as the difference.
func threadCPU(pid int) map[string]float64 {
	out := map[string]float64{"(whole process)": cpuSeconds(pid)}
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	for _, t := range tasks {
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, t.Name()))
		if err != nil {
			continue
		}
		if name, seconds := statCPU(string(raw)); name != "" {
			out[strings.TrimRight(name, "0123456789")] += seconds
		}
	}
	return out
}
