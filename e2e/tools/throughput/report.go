package main

import (
	"fmt"
	"sort"
	"strings"
)

// render prints the runs side by side: throughput first, then where the time goes.
func render(rs []result, transport string) string {
	var b strings.Builder
	// the last run a, b, f, dra-root and b-base at each size
	base, warm, floor, dra := map[int]float64{}, map[int]float64{}, map[int]float64{}, map[int]float64{}
	baseline := map[int]float64{}
	for _, r := range rs {
		switch r.run {
		case runBaseline:
			baseline[r.nodes] = r.podsPerSecond()
		case "a":
			base[r.nodes] = r.podsPerSecond()
		case "b":
			warm[r.nodes] = r.podsPerSecond()
		case "f":
			floor[r.nodes] = r.podsPerSecond()
		case runDRARoot:
			dra[r.nodes] = r.podsPerSecond()
		}
	}
	fmt.Fprintf(&b, "\nkube-scheduler clientConnection: %s; extender verbs: %s\n\n", rs[0].qps, transport)
	// ÷ b-base only when the baseline ran: b ÷ b-base is this tree against the baseline's
	byBaseline, baselineHead, baselineRule := len(baseline) > 0, "", ""
	if byBaseline {
		baselineHead, baselineRule = " ÷ "+runBaseline+" |", "---:|"
	}
	b.WriteString("| nodes | run | device pods | s | pods/s | ÷ a | ÷ f |" + baselineHead + " CPU-only pods | their pods/s | aligned | double-booked | load avg |\n")
	b.WriteString("|---:|---|---:|---:|---:|---:|---:|" + baselineRule + "---:|---:|---:|---:|---:|\n")
	for _, r := range rs {
		ratio, ratioF, cpu, cpuRate, aligned := "", "", "", "", "n/a"
		if a := base[r.nodes]; a > 0 {
			ratio = fmt.Sprintf("%.2f", r.podsPerSecond()/a)
		}
		if f := floor[r.nodes]; f > 0 {
			ratioF = fmt.Sprintf("%.2f", r.podsPerSecond()/f)
		}
		if r.cpu.pods > 0 {
			cpu, cpuRate = fmt.Sprint(r.cpu.pods), fmt.Sprintf("%.1f", float64(r.cpu.pods)/r.cpu.seconds())
		}
		if tandemRun(r.run) || isDRA(r.run) {
			aligned = fmt.Sprintf("%d/%d", r.aligned, r.pods)
		}
		devicePods := fmt.Sprint(r.device.pods)
		if r.pending > 0 {
			devicePods += fmt.Sprintf(" (+%d unschedulable)", r.pending)
		}
		ratioBase := ""
		if byBaseline {
			ratioBase = " |"
			if x := baseline[r.nodes]; x > 0 {
				ratioBase = fmt.Sprintf(" %.2f |", r.podsPerSecond()/x)
			}
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %.1f | %.1f | %s | %s |%s %s | %s | %s | %d | %s |\n",
			r.nodes, r.name(), devicePods, r.device.seconds(), r.podsPerSecond(), ratio, ratioF, ratioBase, cpu, cpuRate, aligned, r.doubleBooked, r.load)
	}
	for _, r := range rs {
		if root := dra[r.nodes]; r.run == runDRAGen && root > 0 {
			fmt.Fprintf(&b, "\n%s ÷ %s at %d nodes: %.2f (goal: at least 0.9)\n", runDRAGen, runDRARoot, r.nodes, r.podsPerSecond()/root)
		}
	}
	b.WriteString(renderTakeovers(rs, base, warm))
	b.WriteString("\nWhere the time goes (ms; extender verbs: mean / p50 / p99 / max as kube-scheduler sees them at the proxy, mean / p99 bucket bound in the extender's own metrics):\n\n")
	b.WriteString("| nodes | run | algorithm mean | own plugins | filter seen | filter own | prioritize seen | prioritize own | bind seen | bind own | scheduler Bind point | GC pauses |\n")
	b.WriteString("|---:|---|---:|---:|---|---|---|---|---|---|---:|---|\n")
	for _, r := range rs {
		fmt.Fprintf(&b, "| %d | %s | %.1f | %.1f | %s | %s | %s | %s | %s | %s | %.1f | %d, %.0f ms |\n",
			r.nodes, r.name(), r.algorithmMs, r.frameworkMs,
			seen(r.seen["filter"]), own(r.own["filter"]), seen(r.seen["prioritize"]), own(r.own["prioritize"]),
			seen(r.seen["bind"]), own(r.own["bind"]), r.schedBindMs, r.gcCount, r.gcMs)
	}
	b.WriteString("\nCPU ms per pod bound (all pods of the run), by process:\n\n| nodes | run |")
	for _, p := range processes {
		b.WriteString(" " + p + " |")
	}
	b.WriteString("\n|---:|---|" + strings.Repeat("---:|", len(processes)) + "\n")
	for _, r := range rs {
		fmt.Fprintf(&b, "| %d | %s |", r.nodes, r.name())
		for _, p := range processes {
			fmt.Fprintf(&b, " %.1f |", r.cpuPerPod[p])
		}
		b.WriteString("\n")
	}
	b.WriteString("\nThe extender's CPU ms per pod bound, by thread group:\n\n")
	for _, r := range rs {
		fmt.Fprintf(&b, "- %d %s:", r.nodes, r.name())
		groups := make([]string, 0, len(r.extThreads))
		for g := range r.extThreads {
			groups = append(groups, g)
		}
		sort.Slice(groups, func(i, j int) bool { return r.extThreads[groups[i]] > r.extThreads[groups[j]] })
		for _, g := range groups {
			fmt.Fprintf(&b, " %s %.2f;", g, r.extThreads[g])
		}
		b.WriteString("\n")
	}
	b.WriteString("\nkube-apiserver requests per pod bound (apiserver_request_total), by verb and resource:\n\n")
	for _, r := range rs {
		fmt.Fprintf(&b, "- %d %s:", r.nodes, r.name())
		calls := make([]string, 0, len(r.apiCalls))
		for c, n := range r.apiCalls {
			if n >= 0.01 {
				calls = append(calls, c)
			}
		}
		sort.Slice(calls, func(i, j int) bool { return r.apiCalls[calls[i]] > r.apiCalls[calls[j]] })
		for _, c := range calls {
			fmt.Fprintf(&b, " %s %.2f;", c, r.apiCalls[c])
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

// name is the run as the tables show it: runs s and s0 with their round since the takeover.
func (r result) name() string {
	if r.round > 0 {
		return fmt.Sprintf("%s #%d", r.run, r.round)
	}
	return r.run
}

// renderTakeovers sums up each standby that took over (runs s and s0): how it came to lead, its
// first run of pods and all its rounds together (pods over the sum of the rounds' spans), each as
// a ratio to the last warm run b and run a at the size.
func renderTakeovers(rs []result, base, warm map[int]float64) string {
	var b strings.Builder
	ratio := func(x, of float64) string {
		if of <= 0 {
			return ""
		}
		return fmt.Sprintf("%.2f", x/of)
	}
	for i, r := range rs {
		if r.takeover == nil {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("\nThe standby that takes over (s: rehearsed, s0: idled as long; rounds in order, pods/s over all of them = pods ÷ the sum of their spans):\n\n")
			b.WriteString("| nodes | run | rehearsal cycles | synced → released s | released → ready s | first pods | pods/s | ÷ b | ÷ a | all pods | pods/s | ÷ b | ÷ a | each round, pods/s |\n")
			b.WriteString("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
		}
		var pods int
		var secs float64
		var each []string
		for _, x := range rs[i:] {
			if x.run != r.run || x.nodes != r.nodes || (x.round == 1 && x.takeover != r.takeover) {
				break
			}
			pods += x.device.pods
			secs += x.device.seconds()
			each = append(each, fmt.Sprintf("%.1f", x.podsPerSecond()))
		}
		first, all := r.podsPerSecond(), float64(pods)/secs
		fmt.Fprintf(&b, "| %d | %s | %d | %.1f | %.1f | %d | %.1f | %s | %s | %d | %.1f | %s | %s | %s |\n",
			r.nodes, r.run, r.takeover.cycles, r.takeover.waited.Seconds(), r.takeover.ready.Seconds(),
			r.device.pods, first, ratio(first, warm[r.nodes]), ratio(first, base[r.nodes]),
			pods, all, ratio(all, warm[r.nodes]), ratio(all, base[r.nodes]), strings.Join(each, ", "))
	}
	return b.String()
}
