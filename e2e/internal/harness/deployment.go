package harness

import "fmt"

// Container is what a Deployment of the installed documents runs: its first container's args and
// its literal environment values (valueFrom entries are left out; the harness sets those itself).
type Container struct {
	Args []string
	Env  map[string]string
}

// DeploymentContainer reads the first container of Deployment name among docs (manifests/ or a
// chart's release).
func DeploymentContainer(docs []Doc, name string) (*Container, error) {
	return WorkloadContainer(docs, "Deployment", name)
}

// WorkloadContainer reads the first container of the pod template of a workload (Deployment, Job)
// among docs.
func WorkloadContainer(docs []Doc, kind, name string) (*Container, error) {
	for _, d := range docs {
		if d.Kind != kind || d.Name != name {
			continue
		}
		spec, _ := d.Obj["spec"].(map[string]any)
		tmpl, _ := spec["template"].(map[string]any)
		pspec, _ := tmpl["spec"].(map[string]any)
		cs, _ := pspec["containers"].([]any)
		if len(cs) == 0 {
			return nil, fmt.Errorf("%s: %s %s has no containers", d.File, kind, name)
		}
		c, _ := cs[0].(map[string]any)
		out := &Container{Env: map[string]string{}}
		if as, ok := c["args"].([]any); ok {
			for _, a := range as {
				out.Args = append(out.Args, fmt.Sprint(a))
			}
		}
		if es, ok := c["env"].([]any); ok {
			for _, e := range es {
				m, _ := e.(map[string]any)
				if v, ok := m["value"].(string); ok {
					out.Env[fmt.Sprint(m["name"])] = v
				}
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("no %s %s in what was installed", kind, name)
}
