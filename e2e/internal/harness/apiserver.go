package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// StopAPIServer stops kube-apiserver (SIGTERM, then SIGKILL after grace: its graceful termination
// waits for open watches, up to a minute) and keeps it down until StartAPIServer: e2e/control-plane
// runs it under a supervisor that waits while the hold file exists. killed says whether SIGKILL was
// needed.
func (e *Env) StopAPIServer(grace time.Duration) (killed bool, err error) {
	if err := os.WriteFile(filepath.Join(e.Dir, "kube-apiserver.hold"), nil, 0o644); err != nil {
		return false, err
	}
	b, err := os.ReadFile(filepath.Join(e.Dir, "kube-apiserver.pid"))
	if err != nil {
		return false, fmt.Errorf("kube-apiserver's pid (written by e2e/control-plane): %w", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return false, fmt.Errorf("kube-apiserver.pid: %w", err)
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return false, fmt.Errorf("stop kube-apiserver (pid %d): %w", pid, err)
	}
	exited := func(context.Context) error {
		if !gone(pid) {
			return fmt.Errorf("kube-apiserver (pid %d) still runs", pid)
		}
		return nil
	}
	if Eventually(context.Background(), 20*time.Millisecond, grace, exited) == nil {
		return false, nil
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	return true, Eventually(context.Background(), 20*time.Millisecond, time.Minute, exited)
}

// gone: no such process, or a zombie its supervisor has not reaped yet.
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// StartAPIServer lets the supervisor start kube-apiserver again (same flags, port and etcd) and waits
// until its /readyz answers ok.
func (e *Env) StartAPIServer(c *Clients, timeout time.Duration) error {
	if err := os.Remove(filepath.Join(e.Dir, "kube-apiserver.hold")); err != nil {
		return err
	}
	err := Eventually(context.Background(), 100*time.Millisecond, timeout, func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		body, err := c.Kube.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		if err != nil {
			return err
		}
		if strings.TrimSpace(string(body)) != "ok" {
			return fmt.Errorf("/readyz says %s", body)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("kube-apiserver not ready after its restart: %w; see logs/kube-apiserver.log", err)
	}
	return nil
}
