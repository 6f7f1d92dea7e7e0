//go:build !k8s134

package dra

import (
	"fmt"
	"os"
	"path/filepath"

	oci "github.com/opencontainers/runtime-spec/specs-go"
	"sigs.k8s.io/yaml"
	"tags.cncf.io/container-device-interface/pkg/cdi"
	cdispec "tags.cncf.io/container-device-interface/specs-go"
)

// GPUEnvPrefix starts the variable each GPU of WriteNvidiaSpec's spec sets (E2E_GPU_<index>=<uuid>),
// so that a container's OCI spec says which GPUs it was given.
const GPUEnvPrefix = "E2E_GPU_"

// WriteNvidiaSpec writes dir/nvidia.yaml as NVIDIA's container toolkit generates it for the node's
// GPUs (kind nvidia.com/gpu, each GPU named by its index and by its UUID, and "all"), with the CDI
// project's own types. Its edits set an environment variable per GPU instead of the /dev/nvidia*
// device nodes, which this machine does not have.
func WriteNvidiaSpec(dir string, uuids []string) error {
	spec := cdispec.Spec{Version: "0.5.0", Kind: "nvidia.com/gpu"}
	var all []string
	for i, u := range uuids {
		env := fmt.Sprintf("%s%d=%s", GPUEnvPrefix, i, u)
		all = append(all, env)
		for _, name := range []string{fmt.Sprint(i), u} {
			spec.Devices = append(spec.Devices, cdispec.Device{Name: name, ContainerEdits: cdispec.ContainerEdits{Env: []string{env}}})
		}
	}
	spec.Devices = append(spec.Devices, cdispec.Device{Name: "all", ContainerEdits: cdispec.ContainerEdits{Env: all}})
	raw, err := yaml.Marshal(spec)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "nvidia.yaml"), raw, 0o644)
}

// ContainerSpec is what a container runtime makes of a container given these CDI device ids: the CDI
// library reads the specs in dirs (refusing any it finds invalid) and injects the devices into an
// empty OCI spec. A device node's type and numbers come from the host file it names.
func ContainerSpec(dirs []string, ids []string) (*oci.Spec, error) {
	cache, err := cdi.NewCache(cdi.WithSpecDirs(dirs...), cdi.WithAutoRefresh(false))
	if err != nil {
		return nil, fmt.Errorf("CDI specs in %v: %w", dirs, err)
	}
	if errs := cache.GetErrors(); len(errs) > 0 {
		return nil, fmt.Errorf("CDI specs in %v are refused by the CDI library: %v", dirs, errs)
	}
	spec := &oci.Spec{Process: &oci.Process{}, Linux: &oci.Linux{}}
	if unresolved, err := cache.InjectDevices(spec, ids...); err != nil {
		return nil, fmt.Errorf("CDI devices %v (unresolved %v) from %v: %w", ids, unresolved, dirs, err)
	}
	return spec, nil
}
