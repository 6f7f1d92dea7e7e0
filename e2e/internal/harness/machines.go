package harness

import "strings"

// Machine is a real server's hwloc export among test-fixtures' topology files (Env.Topology), with
// the GPUs and HCAs a fake Node of that machine advertises.
type Machine struct {
	File       string
	GPUs, HCAs int
}

// Short is the machine's short name in node names: the word after the vendor (poweredge, ac922, …).
func (m Machine) Short() string { return strings.SplitN(m.File, "-", 3)[1] }

// The machines the scenarios and tools build their fake nodes from; test-fixtures'
// PROVENANCE.md says where each export comes from.
var (
	// XE8640 has three GPUs sharing a PCIe switch with an HCA, and one GPU with none (NODE).
	XE8640 = Machine{"dell-poweredge-xe8640-h100x4.xml", 4, 4}
	// Lassen (IBM AC922) shares no bridge: GPUs pair with HCAs by socket (NODE).
	Lassen = Machine{"ibm-ac922-lassen-v100x4.xml", 4, 4}
	// Relion has its two GPUs and one HCA under one PLX switch (PIX).
	Relion = Machine{"penguin-relion-x1904gt-p100x2.xml", 2, 1}
	// SL390s has no switches: its best pair is PHB.
	SL390s = Machine{"hp-proliant-sl390s-g7-m2070x3.xml", 3, 1}
)

// Machines are those four, in the order the benchmark tools cycle fake nodes through them.
var Machines = []Machine{XE8640, Lassen, Relion, SL390s}
