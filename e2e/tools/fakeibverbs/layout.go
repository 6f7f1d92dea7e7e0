package main

import (
	"encoding/json"
	"fmt"
	"os"
)

// layout is what the fake libibverbs and libmlx5 report, read from JSON such as
//
//	{"devices": [{"name": "mlx5_0", "state": 4, "linkLayer": 2,
//	  "dataDirect": "/devices/pci0009:00/0009:00:00.0/0009:01:00.0/0009:02:00.0/0009:03:00.0"}]}
//
// (test-fixtures' MachineTrees writes it beside a machine's tree). state is port 1's enum
// ibv_port_state (4 is IBV_PORT_ACTIVE), linkLayer its IBV_LINK_LAYER_* (1 InfiniBand, 2 Ethernet),
// both as rdma-core's libibverbs/verbs.h numbers them. dataDirect is the sysfs path, below /sys,
// that mlx5dv_get_data_direct_sysfs_path gives the device: "" for a device without a Data Direct
// function (ENODEV). dataDirectErrno, when not 0, is the errno it answers instead.
type layout struct {
	Devices []device `json:"devices"`
}

type device struct {
	Name            string `json:"name"`
	State           int    `json:"state"`
	LinkLayer       int    `json:"linkLayer"`
	DataDirect      string `json:"dataDirect"`
	DataDirectErrno int    `json:"dataDirectErrno"`
}

func readLayout(path string) (*layout, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var l layout
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, d := range l.Devices {
		if d.Name == "" {
			return nil, fmt.Errorf("%s: a device without a name", path)
		}
	}
	return &l, nil
}
