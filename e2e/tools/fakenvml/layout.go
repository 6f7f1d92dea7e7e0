package main

import (
	"encoding/json"
	"fmt"
	"os"
)

// The MIG mode of a GPU in the layout.
const (
	migDisabled    = "disabled"
	migEnabled     = "enabled"
	migUnsupported = "unsupported"
)

// layout is what the fake NVML reports, read from JSON such as
//
//	{"initError": 0, "gpus": [{"uuid": "GPU-…", "busId": "00000000:3B:00.0",
//	  "migMode": "enabled", "migDevices": ["MIG-…", "", "MIG-…"]}]}
//
// initError, when not 0, is what nvmlInit_v2 returns (9 is NVML_ERROR_DRIVER_NOT_LOADED).
// migMode is enabled, disabled or unsupported (nvmlDeviceGetMigMode then answers
// NVML_ERROR_NOT_SUPPORTED, as on a GPU without MIG). migDevices are the MIG devices by index up to
// nvmlDeviceGetMaxMigDeviceCount; "" is an index without a MIG device (NVML_ERROR_NOT_FOUND).
type layout struct {
	InitError int   `json:"initError"`
	GPUs      []gpu `json:"gpus"`
}

type gpu struct {
	UUID       string   `json:"uuid"`
	BusID      string   `json:"busId"`
	MigMode    string   `json:"migMode"`
	MigDevices []string `json:"migDevices"`
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
	for i, g := range l.GPUs {
		switch g.MigMode {
		case "":
			l.GPUs[i].MigMode = migDisabled
		case migDisabled, migEnabled, migUnsupported:
		default:
			return nil, fmt.Errorf("%s: GPU %s: migMode %q is not enabled, disabled or unsupported", path, g.UUID, g.MigMode)
		}
	}
	return &l, nil
}

// errorText is nvmlErrorString's text for the codes the fake returns.
func errorText(rc int) string {
	switch rc {
	case 0:
		return "Success"
	case 1:
		return "Uninitialized"
	case 2:
		return "Invalid Argument"
	case 3:
		return "Not Supported"
	case 4:
		return "Insufficient Permissions"
	case 6:
		return "Not Found"
	case 7:
		return "Insufficient Size"
	case 9:
		return "Driver Not Loaded"
	case 12:
		return "NVML Shared Library Not Found"
	default:
		return "Unknown Error"
	}
}
