package main

import (
	"fmt"
	"strings"
)

// render prints the runs side by side: throughput first, then where the time goes.
func render(rs []result) string {
	var b strings.Builder
	base := map[int]float64{}
	for _, r := range rs {
		if r.run == "a" {
			base[r.nodes] = r.podsPerSecond()
		}
	}
	fmt.Fprintf(&b, "\nkube-scheduler clientConnection: %s\n\n", rs[0].qps)
	b.WriteString("| nodes | run | device pods | s | pods/s | ÷ a | CPU-only pods | their pods/s | aligned | double-booked | load avg |\n")
	b.WriteString("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rs {
		ratio, cpu, cpuRate, aligned := "", "", "", "n/a"
		if a := base[r.nodes]; a > 0 {
			ratio = fmt.Sprintf("%.2f", r.podsPerSecond()/a)
		}
		if r.cpu.pods > 0 {
			cpu, cpuRate = fmt.Sprint(r.cpu.pods), fmt.Sprintf("%.1f", float64(r.cpu.pods)/r.cpu.seconds())
		}
		if r.run != "a" {
			aligned = fmt.Sprintf("%d/%d", r.aligned, r.pods)
		}
		fmt.Fprintf(&b, "| %d | %s | %d | %.1f | %.1f | %s | %s | %s | %s | %d | %s |\n",
			r.nodes, r.run, r.device.pods, r.device.seconds(), r.podsPerSecond(), ratio, cpu, cpuRate, aligned, r.doubleBooked, r.load)
	}
	b.WriteString("\nWhere the time goes (ms; extender verbs: mean / p50 / p99 / max as kube-scheduler sees them at the proxy, mean / p99 bucket bound in the extender's own metrics):\n\n")
	b.WriteString("| nodes | run | algorithm mean | own plugins | filter seen | filter own | prioritize seen | prioritize own | bind seen | bind own | scheduler Bind point | GC pauses |\n")
	b.WriteString("|---:|---|---:|---:|---|---|---|---|---|---|---:|---|\n")
	for _, r := range rs {
		fmt.Fprintf(&b, "| %d | %s | %.1f | %.1f | %s | %s | %s | %s | %s | %s | %.1f | %d, %.0f ms |\n",
			r.nodes, r.run, r.algorithmMs, r.frameworkMs,
			seen(r.seen["filter"]), own(r.own["filter"]), seen(r.seen["prioritize"]), own(r.own["prioritize"]),
			seen(r.seen["bind"]), own(r.own["bind"]), r.schedBindMs, r.gcCount, r.gcMs)
	}
	b.WriteString("\nCPU ms per pod bound (all pods of the run), by process:\n\n| nodes | run |")
	for _, p := range processes {
		b.WriteString(" " + p + " |")
	}
	b.WriteString("\n|---:|---|" + strings.Repeat("---:|", len(processes)) + "\n")
	for _, r := range rs {
		fmt.Fprintf(&b, "| %d | %s |", r.nodes, r.run)
		for _, p := range processes {
			fmt.Fprintf(&b, " %.1f |", r.cpuPerPod[p])
		}
		b.WriteString("\n")
	}
	return b.String()
}

func seen(l latency) string {
	if l.n == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f / %.1f / %.1f / %.0f", l.mean, l.p50, l.p99, l.max)
}

func own(l latency) string {
	if l.n == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f / %.0f", l.mean, l.p99)
}
