package main

import (
	"fmt"
	"strings"
	"time"
)

// Limits of a passing soak: the heap after a full GC at the last sample within 10 % of the first,
// and threads and descriptors not above the first sample's (plus two: the JVM starts and retires
// compiler threads on its own).
const (
	heapGrowth  = 1.10
	countsSlack = 2
)

type row struct {
	pods    int
	elapsed time.Duration
	s       sample
	errors  int
}

type report struct{ rows []row }

func (r *report) add(pods int, elapsed time.Duration, s sample, ch *churn) {
	ch.mu.Lock()
	errs, clashes, unplaceable, retries := len(ch.errors), len(ch.clashes), ch.unplaceable, ch.retries
	ch.mu.Unlock()
	if len(r.rows) == 0 {
		fmt.Printf("%8s %9s %9s %14s %8s %5s %14s %8s %12s %7s\n", "pods", "seconds", "pods/s", "heap-after-GC", "threads", "fds", "double-booked", "retries", "unplaceable", "errors")
	}
	rate := float64(pods) / elapsed.Seconds()
	fmt.Printf("%8d %9.1f %9.1f %11.1f MiB %8d %5d %14d %8d %12d %7d\n", pods, elapsed.Seconds(), rate,
		float64(s.heapKiB)/1024, s.threads, s.fds, clashes, retries, unplaceable, errs)
	r.rows = append(r.rows, row{pods: pods, elapsed: elapsed, s: s, errors: errs})
}

// verdict prints the summary and fails the soak on a double-booked device, a growing heap, thread
// or descriptor count, or any error.
func (r *report) verdict(ch *churn, elapsed time.Duration) error {
	first, last := r.rows[0], r.rows[len(r.rows)-1]
	growth := float64(last.s.heapKiB) / float64(first.s.heapKiB)
	fmt.Printf("soak: %d pods in %.0f s (%.1f pods/s); heap after full GC %.1f → %.1f MiB (×%.3f); threads %d → %d; fds %d → %d; double-booked %d; unplaceable %d; errors %d\n",
		last.pods, elapsed.Seconds(), float64(last.pods)/elapsed.Seconds(),
		float64(first.s.heapKiB)/1024, float64(last.s.heapKiB)/1024, growth,
		first.s.threads, last.s.threads, first.s.fds, last.s.fds, len(ch.clashes), ch.unplaceable, len(ch.errors))
	var fails []string
	if len(ch.clashes) > 0 {
		fails = append(fails, fmt.Sprintf("%d devices double-booked, first: %s", len(ch.clashes), ch.clashes[0]))
	}
	if len(ch.errors) > 0 {
		fails = append(fails, fmt.Sprintf("%d errors, first: %s", len(ch.errors), ch.errors[0]))
	}
	if len(r.rows) > 1 && growth > heapGrowth {
		fails = append(fails, fmt.Sprintf("heap after full GC grew ×%.3f from the first sample to the last (limit ×%.2f)", growth, heapGrowth))
	}
	if last.s.threads > first.s.threads+countsSlack {
		fails = append(fails, fmt.Sprintf("threads grew from %d to %d", first.s.threads, last.s.threads))
	}
	if last.s.fds > first.s.fds+countsSlack {
		fails = append(fails, fmt.Sprintf("open descriptors grew from %d to %d", first.s.fds, last.s.fds))
	}
	if len(fails) > 0 {
		return fmt.Errorf("the soak failed:\n  %s", strings.Join(fails, "\n  "))
	}
	fmt.Println("soak: passed")
	return nil
}
