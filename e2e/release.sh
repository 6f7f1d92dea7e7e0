# Sourced by e2e/run and e2e/upstream-bin (from e2e/): the Kubernetes release the harness builds
# against, its binaries and its embedded kubelet code alike. See docs/e2e.md.
#
#   E2E_K8S unset   e2e/go.mod's release, the newest supported (every scenario)
#   E2E_K8S=1.34    e2e/go.k134.mod's, the oldest supported, built with -tags k8s134 (the kubelet
#                   calls that differ are in internal/nodeside/upstream*.go; the DRA scenario is not
#                   built: 1.34's kubelet DRA manager has another Go API); without test flags, e2e/run
#                   runs the device-plugin scenarios only (the kubelet's device manager of 1.34)
# Sets modfile, go_flags (the module file for every go command), k8s_tags (the build tags beside
# e2e's own), default_run (the scenarios e2e/run runs without test flags; empty: all) and k8s_version.
case "${E2E_K8S:-}" in
  "") modfile=go.mod go_flags=() k8s_tags="" default_run="" ;;
  1.34)
    modfile=go.k134.mod go_flags=(-modfile=go.k134.mod) k8s_tags=k8s134
    default_run='^(TestNodeSide.*|TestDevicePluginFaults)$'
    ;;
  *)
    echo "e2e: E2E_K8S=$E2E_K8S is not a release the harness builds against (leave it unset, or 1.34)" >&2
    exit 2
    ;;
esac
k8s_version=$(sed -n 's/^[[:space:]]*k8s.io\/kubernetes \(v[0-9.]*\).*/\1/p' "$modfile" | head -n1)
