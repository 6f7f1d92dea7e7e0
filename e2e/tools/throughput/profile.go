package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
)

// profileScheduler records kube-scheduler's CPU profile (its /debug/pprof, on by default) for the
// first seconds of a run into dir/<run>.pprof; read it with `go tool pprof`. The returned channel
// closes when the profile is written or has failed (the failure is printed, the run goes on).
func profileScheduler(schedURL, dir, run string, seconds int) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := fetchProfile(fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", schedURL, seconds),
			filepath.Join(dir, run+".pprof")); err != nil {
			fmt.Fprintf(os.Stderr, "throughput: kube-scheduler profile of run %s: %v\n", run, err)
		}
	}()
	return done
}

// profiling waits as long as the profile is recorded (insecure's timeout is shorter).
var profiling = &http.Client{Transport: insecure.Transport}

func fetchProfile(url, file string) error {
	resp, err := profiling.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("GET %s: HTTP %d", url, resp.StatusCode)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
