package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// sample is what the extender's JVM holds after a full collection.
type sample struct {
	heapKiB int64 // used heap right after GC.run
	threads int   // /proc/<pid>/task
	fds     int   // /proc/<pid>/fd
}

var (
	usedKiB  = regexp.MustCompile(`used (\d+)K`)
	metadata = regexp.MustCompile(`(?i)metaspace|class space`)
)

// sampleJVM runs a full GC in pid (jcmd GC.run), then reads the used heap (jcmd GC.heap_info: the
// sum of the generations' "used"; metaspace lines are not summed), threads and open descriptors.
func sampleJVM(jcmd string, pid int) (sample, error) {
	p := strconv.Itoa(pid)
	if out, err := exec.Command(jcmd, p, "GC.run").CombinedOutput(); err != nil {
		return sample{}, fmt.Errorf("jcmd %s GC.run: %v: %s", p, err, out)
	}
	out, err := exec.Command(jcmd, p, "GC.heap_info").CombinedOutput()
	if err != nil {
		return sample{}, fmt.Errorf("jcmd %s GC.heap_info: %v: %s", p, err, out)
	}
	var s sample
	for _, line := range strings.Split(string(out), "\n") {
		if metadata.MatchString(line) {
			continue
		}
		if m := usedKiB.FindStringSubmatch(line); m != nil {
			k, _ := strconv.ParseInt(m[1], 10, 64)
			s.heapKiB += k
		}
	}
	if s.heapKiB == 0 {
		return sample{}, fmt.Errorf("jcmd %s GC.heap_info printed no used heap:\n%s", p, out)
	}
	if s.threads, err = entries(fmt.Sprintf("/proc/%d/task", pid)); err != nil {
		return sample{}, err
	}
	s.fds, err = entries(fmt.Sprintf("/proc/%d/fd", pid))
	return s, err
}

func entries(dir string) (int, error) {
	es, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("reading %s: %w", dir, err)
	}
	return len(es), nil
}

// jcmdNextTo finds jcmd beside the java that runs the extender (JAVA_HOME, else the java on PATH).
func jcmdNextTo(java string) (string, error) {
	path, err := exec.LookPath(java)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	jcmd := filepath.Join(filepath.Dir(path), "jcmd")
	if _, err := os.Stat(jcmd); err != nil {
		return "", fmt.Errorf("no jcmd next to %s (a JDK, not a JRE, is needed to sample the heap): %w", path, err)
	}
	return jcmd, nil
}
