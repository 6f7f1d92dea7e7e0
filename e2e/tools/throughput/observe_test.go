package main

import (
	"testing"
	"time"
)

// The extender's p99 comes from the bucket deltas between two scrapes, not from buckets filled
// before the run.
func TestQuantileUsesOnlyTheRunsObservations(t *testing.T) {
	before := series{
		`x_seconds_bucket{verb="filter",le="0.001"}`: 0,
		`x_seconds_bucket{verb="filter",le="0.01"}`:  0,
		`x_seconds_bucket{verb="filter",le="1.0"}`:   50,
		`x_seconds_bucket{verb="filter",le="+Inf"}`:  50,
		`x_seconds_count{verb="filter"}`:             50,
	}
	after := series{
		`x_seconds_bucket{verb="filter",le="0.001"}`: 99,
		`x_seconds_bucket{verb="filter",le="0.01"}`:  100,
		`x_seconds_bucket{verb="filter",le="1.0"}`:   150,
		`x_seconds_bucket{verb="filter",le="+Inf"}`:  150,
		`x_seconds_count{verb="filter"}`:             150,
		`x_seconds_bucket{verb="bind",le="1.0"}`:     7,
	}
	if got := quantileMs(before, after, "x_seconds", 0.99, `verb="filter"`); got != 1 {
		t.Errorf("p99 of 99 calls under 1 ms and 1 under 10 ms: got %v ms, want 1", got)
	}
	if got := quantileMs(before, after, "x_seconds", 1, `verb="filter"`); got != 10 {
		t.Errorf("max bucket: got %v ms, want 10", got)
	}
}

func TestSummarize(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	l := summarize(ds)
	if l.n != 100 || l.mean != 50.5 || l.p50 != 51 || l.p99 != 100 || l.max != 100 {
		t.Errorf("summarize(1..100 ms) = %+v", l)
	}
}

func TestStatCPUReadsNameWithSpacesAndTicks(t *testing.T) {
	line := "4242 (C2 Compiler (x) 1) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 1 0 100 0 0\n"
	name, seconds := statCPU(line)
	if name != "C2 Compiler (x) 1" || seconds != 3.0 {
		t.Fatalf("statCPU = %q, %v; want the name and (250+50)/100 s", name, seconds)
	}
	if name, seconds := statCPU("garbage"); name != "" || seconds != 0 {
		t.Fatalf("statCPU(garbage) = %q, %v", name, seconds)
	}
}
