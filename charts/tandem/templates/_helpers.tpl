{{/* Labels of every object: the component's name, part-of, and Helm's bookkeeping labels. */}}
{{- define "tandem.labels" -}}
app.kubernetes.io/name: {{ .name }}
app.kubernetes.io/part-of: tandem
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version }}
{{- end }}

{{/* Labels of a component's pods, and its selector (the kustomize base's, unchanged). */}}
{{- define "tandem.podLabels" -}}
app.kubernetes.io/name: {{ . }}
app.kubernetes.io/part-of: tandem
{{- end }}

{{- define "tandem.image" -}}
{{ .image.repository }}:{{ .image.tag | default .root.Chart.AppVersion }}
{{- end }}

{{/* The extender Service's DNS name. */}}
{{- define "tandem.extenderHost" -}}
tandem-scheduler-extender.{{ .Release.Namespace }}.svc
{{- end }}

{{- define "tandem.tlsSecret" -}}
{{ .Values.extender.tls.secretName | default "tandem-scheduler-extender-tls" }}
{{- end }}

{{- define "tandem.clientTlsSecret" -}}
{{ .Values.extender.tls.clientSecretName | default "tandem-scheduler-client-tls" }}
{{- end }}

{{/* Node placement of the node DaemonSets: .root, and .path: "" for the agent (every selected node),
"dra" or "device-plugin". With draDriver.perNode the DRA driver runs on the nodes labelled
tandem.dev/device-path=dra and the device plugin on the others: a term of nodes.affinity's required
node affinity (or a term of its own) gets the label's expression. */}}
{{- define "tandem.nodePlacement" -}}
{{- $v := .root.Values -}}
nodeSelector:
{{- if $v.nodes.nfd }}
  feature.node.kubernetes.io/pci-10de.present: "true"
  feature.node.kubernetes.io/pci-15b3.present: "true"
{{- else }}
{{- toYaml $v.nodes.nodeSelector | nindent 2 }}
{{- end }}
{{- $affinity := deepCopy ($v.nodes.affinity | default dict) }}
{{- if and .path $v.draDriver.enabled $v.draDriver.perNode }}
{{- $expr := dict "key" "tandem.dev/device-path" "operator" (ternary "In" "NotIn" (eq .path "dra")) "values" (list "dra") }}
{{- $na := $affinity.nodeAffinity | default dict }}
{{- $req := $na.requiredDuringSchedulingIgnoredDuringExecution | default dict }}
{{- $terms := list }}
{{- range ($req.nodeSelectorTerms | default (list (dict))) }}
{{- $terms = append $terms (set (deepCopy .) "matchExpressions" (append (.matchExpressions | default list) $expr)) }}
{{- end }}
{{- $_ := set $req "nodeSelectorTerms" $terms }}
{{- $_ := set $na "requiredDuringSchedulingIgnoredDuringExecution" $req }}
{{- $_ := set $affinity "nodeAffinity" $na }}
{{- end }}
{{- with $affinity }}
affinity:
{{- toYaml . | nindent 2 }}
{{- end }}
{{- with $v.nodes.tolerations }}
tolerations:
{{- toYaml . | nindent 2 }}
{{- end }}
{{- with $v.imagePullSecrets }}
imagePullSecrets:
{{- range . }}
  - name: {{ . }}
{{- end }}
{{- end }}
{{- end }}

{{/* The device plugin's config.json: only the keys that differ from the plugin's defaults. */}}
{{- define "tandem.devicePluginConfig" -}}
{{- $c := .Values.devicePlugin.config -}}
{{- $out := dict "mode" $c.mode -}}
{{- $names := .Values.resourceNames -}}
{{- if ne $names.hca "rdma/hca" }}{{ $_ := set $out "resourceName" $names.hca }}{{ end -}}
{{- if not (kindIs "invalid" $c.slotsPerHca) }}{{ $_ := set $out "slotsPerHca" (int $c.slotsPerHca) }}{{ end -}}
{{- if $c.selectors }}{{ $_ := set $out "selectors" $c.selectors }}{{ end -}}
{{- if not (kindIs "invalid" $c.healthCheckSeconds) }}{{ $_ := set $out "healthCheckSeconds" (int $c.healthCheckSeconds) }}{{ end -}}
{{- if $c.allocateAllDevices }}{{ $_ := set $out "allocateAllDevices" true }}{{ end -}}
{{- $j := .Values.devicePlugin.joint -}}
{{- $gpu := dict -}}
{{- if $j.enabled -}}
{{- $_ := set $gpu "enabled" true -}}
{{- if $j.cdi }}{{ $_ := set $gpu "cdi" true }}{{ end -}}
{{- if not (kindIs "invalid" $j.reservationSeconds) }}{{ $_ := set $gpu "reservationSeconds" (int $j.reservationSeconds) }}{{ end -}}
{{- end -}}
{{- /* hint mode reads the GPU resource too: the GPUs a container holds, in PodResources */ -}}
{{- if ne $names.gpu "nvidia.com/gpu" }}{{ $_ := set $gpu "resourceName" $names.gpu }}{{ end -}}
{{- if $gpu }}{{ $_ := set $out "gpu" $gpu }}{{ end -}}
{{- toJson $out -}}
{{- end }}

{{/* The agent's and the extender's resource-name flags, where the names differ from the defaults. */}}
{{- define "tandem.resourceNameArgs" -}}
{{- if ne .Values.resourceNames.gpu "nvidia.com/gpu" }}
- --gpu-resource-name={{ .Values.resourceNames.gpu }}
{{- end }}
{{- if ne .Values.resourceNames.hca "rdma/hca" }}
- --hca-resource-name={{ .Values.resourceNames.hca }}
{{- end }}
{{- end }}

{{/* Checks across values that a JSON schema cannot express. */}}
{{- define "tandem.validate" -}}
{{- $c := .Values.devicePlugin.config -}}
{{- if and (ne $c.mode "shared") (not (kindIs "invalid" $c.slotsPerHca)) (ne (int $c.slotsPerHca) 1) -}}
{{- fail (printf "devicePlugin.config.slotsPerHca is %v, but only mode shared offers several slots per HCA (mode is %s)" $c.slotsPerHca $c.mode) -}}
{{- end -}}
{{- if and $c.allocateAllDevices (eq $c.mode "sriov") -}}
{{- fail "devicePlugin.config.allocateAllDevices hands every container all the node's RDMA devices, but mode sriov gives each VF to one pod: use mode hca or shared, or set it false" -}}
{{- end -}}
{{- if eq .Values.resourceNames.gpu .Values.resourceNames.hca -}}
{{- fail (printf "resourceNames.gpu and resourceNames.hca are both %s: the GPU and HCA resources must differ" .Values.resourceNames.hca) -}}
{{- end -}}
{{- if and .Values.draDriver.enabled .Values.devicePlugin.joint.enabled -}}
{{- fail "draDriver.enabled runs the DRA driver instead of the device plugin, so devicePlugin.joint.enabled does nothing: set draDriver.joint for joint mode under DRA, or leave draDriver.enabled false" -}}
{{- end -}}
{{- if and .Values.draDriver.perNode (not .Values.draDriver.enabled) -}}
{{- fail "draDriver.perNode puts the DRA driver on the nodes labelled tandem.dev/device-path=dra, but draDriver.enabled is false: set draDriver.enabled too, or leave draDriver.perNode false" -}}
{{- end -}}
{{- if and .Values.draDriver.claimTemplates.enabled (not .Values.draDriver.joint) -}}
{{- fail "draDriver.claimTemplates.enabled installs claims that ask for the DeviceClasses tandem-gpu and tandem-hca, and tandem-gpu needs the DRA driver in joint mode: set draDriver.enabled and draDriver.joint, or leave draDriver.claimTemplates.enabled false" -}}
{{- end -}}
{{- if and .Values.draDriver.joint (not .Values.draDriver.enabled) -}}
{{- fail "draDriver.joint is set but draDriver.enabled is false: set draDriver.enabled too (the DRA driver replaces the device plugin), or leave draDriver.joint false" -}}
{{- end -}}
{{- if and .Values.extender.tls.certManager.enabled (or .Values.extender.tls.secretName .Values.extender.tls.clientSecretName) -}}
{{- fail "extender.tls.certManager.enabled issues the Secrets itself: leave extender.tls.secretName and clientSecretName empty" -}}
{{- end -}}
{{- end }}

{{/* The extender entry of a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1). */}}
{{- define "tandem.extenderEntry" -}}
{{- $root := .root -}}
{{- $scheme := ternary "https" "http" $root.Values.extender.tls.enabled -}}
- urlPrefix: {{ $scheme }}://{{ .host }}:{{ $root.Values.extender.port }}/scheduler
  filterVerb: filter
  prioritizeVerb: prioritize
  bindVerb: bind
  preemptVerb: preempt
  weight: {{ $root.Values.scheduler.weight }}
  enableHTTPS: {{ $root.Values.extender.tls.enabled }}
{{- if $root.Values.extender.tls.enabled }}
  tlsConfig:
    serverName: {{ include "tandem.extenderHost" $root }}
    certFile: {{ .tlsDir }}/tls.crt
    keyFile: {{ .tlsDir }}/tls.key
    caFile: {{ .tlsDir }}/ca.crt
{{- end }}
  nodeCacheCapable: true
  managedResources:
    - name: {{ $root.Values.resourceNames.gpu }}
      ignoredByScheduler: false
    - name: {{ $root.Values.resourceNames.hca }}
      ignoredByScheduler: false
  ignorable: false
  httpTimeout: {{ $root.Values.scheduler.httpTimeout }}
{{- end }}

{{/* The second scheduler's KubeSchedulerConfiguration. */}}
{{- define "tandem.schedulerConfig" -}}
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: true
  resourceNamespace: {{ .Release.Namespace }}
  resourceName: tandem-scheduler
{{- /* kube-scheduler's client-side rate limit (default 50/100) would cap it near 50 pods/s */}}
clientConnection:
  qps: 500
  burst: 1000
profiles:
  - schedulerName: {{ .Values.scheduler.name }}
extenders:
  {{- include "tandem.extenderEntry" (dict "root" . "host" (include "tandem.extenderHost" .) "tlsDir" "/etc/tandem-scheduler-tls") | nindent 2 }}
{{- end }}
