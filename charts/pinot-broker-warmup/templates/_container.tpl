{{/*
The sidecar container: the one definition both delivery paths use. The warmup-inject
post-renderer renders it from the copy of this chart embedded in it; umbrella charts and forks
include it (see README.md). It reads only .Values (this chart's values) and, when present,
.Capabilities and .BrokerResources (the broker container's resources, which brokerReadiness.decidedBy
auto decides from), so a parent chart can call it with
  (dict "Values" (index .Values "pinot-broker-warmup") "Capabilities" .Capabilities "BrokerResources" <the broker's resources>)
*/}}

{{- define "pinot-broker-warmup.container" -}}
{{- $v := .Values -}}
{{- include "pinot-broker-warmup.validate" . -}}
name: warmup-sidecar
image: {{ include "pinot-broker-warmup.image" $v | quote }}
imagePullPolicy: {{ $v.image.pullPolicy }}
args: ["serve"]
{{- if $v.nativeSidecar }}
# Native sidecar: runs for the pod's whole life, started before the broker. No startupProbe on
# purpose: a warm-gated one would block the broker from starting at all.
restartPolicy: Always
{{- end }}
ports:
  - name: warmup
    containerPort: {{ int $v.warmup.listenPort }}
    protocol: TCP
env:
  {{- include "pinot-broker-warmup.env" $v | nindent 2 }}
  {{- with $v.extraEnv }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
readinessProbe:
  httpGet:
    path: /readyz
    port: warmup
  {{- /* Sampled every brokerReadiness.periodSeconds when the sidecar decides readiness (_readiness.tpl). */}}
  {{- with include "pinot-broker-warmup.gatedProbe" (set (set (pick . "Values" "BrokerResources") "probe" $v.readinessProbe) "startup" false) }}
  {{- . | nindent 2 }}
  {{- end }}
livenessProbe:
  httpGet:
    path: /livez
    port: warmup
  {{- with $v.livenessProbe }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
resources:
  {{- include "pinot-broker-warmup.sidecarResources" . | nindent 2 }}
securityContext:
  {{- toYaml $v.securityContext | nindent 2 }}
terminationMessagePolicy: FallbackToLogsOnError
{{- if or $v.auth.existingSecret $v.brokerJvm.aotCache.enabled $v.brokerCpuBoost.enabled }}
volumeMounts:
  {{- if $v.auth.existingSecret }}
  - name: warmup-auth
    mountPath: {{ $v.auth.mountPath }}
    readOnly: true
  {{- end }}
  {{- if $v.brokerJvm.aotCache.enabled }}
  - name: warmup-aot-log
    mountPath: {{ include "pinot-broker-warmup.aotLogDir" . }}
    readOnly: true
  {{- end }}
  {{- if $v.brokerCpuBoost.enabled }}
  # The pod's ServiceAccount token and the cluster CA, for resizing this pod (brokerCpuBoost).
  - name: warmup-kube-api
    mountPath: {{ include "pinot-broker-warmup.kubeApiDir" . }}
    readOnly: true
  {{- end }}
{{- end }}
{{- end -}}

{{/*
The WARMUP_* environment, one entry per variable of docs/design.md. Optional strings are left out when
empty so the sidecar's own defaults (and its "controller required unless ..." rule) apply.
*/}}
{{- define "pinot-broker-warmup.env" -}}
- name: WARMUP_ENABLED
  value: {{ .warmup.enabled | quote }}
- name: WARMUP_BROKER_URL
  value: {{ include "pinot-broker-warmup.brokerUrl" . | quote }}
{{- with .warmup.controllerUrl }}
- name: WARMUP_CONTROLLER_URL
  value: {{ . | quote }}
{{- end }}
- name: WARMUP_BUDGET
  value: {{ .warmup.budget | quote }}
- name: WARMUP_EXIT
  value: {{ .warmup.exit | quote }}
- name: WARMUP_PROBE_SHAPES
  value: {{ .warmup.probeShapes | quote }}
- name: WARMUP_MULTISTAGE
  value: {{ .warmup.multiStage | quote }}
- name: WARMUP_MIN_ITERATIONS
  value: {{ int .warmup.minIterations | quote }}
- name: WARMUP_MAX_TABLES
  value: {{ int .warmup.maxTables | quote }}
{{- with .warmup.queries }}
- name: WARMUP_QUERY
  value: {{ join ";" . | quote }}
{{- end }}
{{- with .warmup.tables }}
- name: WARMUP_TABLES
  value: {{ join "," . | quote }}
{{- end }}
- name: WARMUP_CONCURRENCY
  value: {{ int .warmup.concurrency | quote }}
- name: WARMUP_MAX_PROBE_RATE
  value: {{ .warmup.maxProbeRate | quote }}
- name: WARMUP_CONVERGE_TOLERANCE
  value: {{ .warmup.convergeTolerance | quote }}
- name: WARMUP_CONVERGE_WINDOWS
  value: {{ int .warmup.convergeWindows | quote }}
{{- with .warmup.jvmMetricsUrl }}
- name: WARMUP_JVM_METRICS_URL
  value: {{ . | quote }}
{{- end }}
- name: WARMUP_PROBE_TIMEOUT
  value: {{ .warmup.probeTimeout | quote }}
- name: WARMUP_FAIL_CLOSED
  value: {{ .warmup.failClosed | quote }}
- name: WARMUP_REARM
  value: {{ .warmup.rearm | quote }}
{{- if .auth.existingSecret }}
- name: WARMUP_AUTH_HEADER_FILE
  value: {{ printf "%s/%s" (trimSuffix "/" .auth.mountPath) .auth.key | quote }}
{{- end }}
{{- if .brokerJvm.aotCache.enabled }}
- name: WARMUP_BROKER_AOT_LOG
  value: {{ printf "%s/aot.log" (include "pinot-broker-warmup.aotLogDir" .) | quote }}
{{- end }}
{{- with (include "pinot-broker-warmup.cpuBoost" . | fromYaml) }}
- name: WARMUP_CPU_BOOST_ENABLED
  value: "true"
- name: WARMUP_CPU_BOOST_CONTAINER
  value: {{ $.brokerContainerName | quote }}
{{- with .giveBackRequest }}
- name: WARMUP_CPU_BOOST_TARGET_REQUEST
  value: {{ . | quote }}
{{- end }}
{{- with .giveBackLimit }}
- name: WARMUP_CPU_BOOST_TARGET_LIMIT
  value: {{ . | quote }}
{{- end }}
- name: WARMUP_CPU_BOOST_MAX_DURATION
  value: {{ $.brokerCpuBoost.maxDuration | quote }}
- name: WARMUP_CPU_BOOST_SETTLE
  value: {{ $.brokerCpuBoost.settle | quote }}
- name: WARMUP_POD_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: WARMUP_POD_NAMESPACE
  valueFrom:
    fieldRef:
      fieldPath: metadata.namespace
- name: WARMUP_KUBE_SERVICE_ACCOUNT_DIR
  value: {{ include "pinot-broker-warmup.kubeApiDir" $ | quote }}
{{- end }}
- name: WARMUP_LISTEN_ADDR
  value: {{ printf ":%d" (int .warmup.listenPort) | quote }}
- name: WARMUP_LOG_FORMAT
  value: {{ .warmup.logFormat | quote }}
- name: WARMUP_LOG_LEVEL
  value: {{ .warmup.logLevel | quote }}
{{- end -}}

{{/* The broker listener the probes use: explicit URL, else the loopback listener, else the query port. */}}
{{- define "pinot-broker-warmup.brokerUrl" -}}
{{- if .warmup.brokerUrl -}}
{{- .warmup.brokerUrl -}}
{{- else if .loopbackListener.enabled -}}
{{- printf "http://127.0.0.1:%d" (int .loopbackListener.port) -}}
{{- else -}}
{{- printf "http://127.0.0.1:%d" (int .warmup.brokerPort) -}}
{{- end -}}
{{- end -}}

{{- define "pinot-broker-warmup.image" -}}
{{- if .image.digest -}}
{{- printf "%s@%s" .image.repository .image.digest -}}
{{- else -}}
{{- printf "%s:%s" .image.repository .image.tag -}}
{{- end -}}
{{- end -}}

{{/*
Checks that JSON schema cannot express: they need two values at once or the cluster version.
*/}}
{{- define "pinot-broker-warmup.validate" -}}
{{- $v := .Values -}}
{{- if and $v.warmup.enabled (not (or $v.warmup.controllerUrl $v.warmup.tables $v.warmup.queries)) -}}
{{- fail "pinot-broker-warmup: set warmup.controllerUrl (the sidecar lists tables there), or warmup.tables or warmup.queries" -}}
{{- end -}}
{{- if and $v.loopbackListener.enabled (eq (int $v.loopbackListener.port) (int $v.warmup.brokerPort)) -}}
{{- fail "pinot-broker-warmup: loopbackListener.port must differ from warmup.brokerPort (the broker's query port)" -}}
{{- end -}}
{{- if $v.brokerJvm.aotCache.enabled -}}
{{- if not $v.brokerJvm.aotCache.volume -}}
{{- fail "pinot-broker-warmup: brokerJvm.aotCache.volume is required when brokerJvm.aotCache.enabled is true: a pod volume source holding the cache, e.g. {persistentVolumeClaim: {claimName: pinot-broker-aot}}" -}}
{{- end -}}
{{- if not $v.brokerJvm.aotCache.key -}}
{{- fail "pinot-broker-warmup: brokerJvm.aotCache.key is required when brokerJvm.aotCache.enabled is true and the broker image is not known (warmup-inject derives it from the broker image; an umbrella chart sets it, e.g. from its broker image tag, so a new image finds no stale cache)" -}}
{{- end -}}
{{- end -}}
{{- if and $v.nativeSidecar .Capabilities -}}
{{- if not (semverCompare ">=1.29.0-0" .Capabilities.KubeVersion.Version) -}}
{{- fail (printf "pinot-broker-warmup: nativeSidecar needs Kubernetes >= 1.29 (restartPolicy on initContainers), this cluster is %s" .Capabilities.KubeVersion.Version) -}}
{{- end -}}
{{- end -}}
{{- include "pinot-broker-warmup.cpuBoostKubeVersion" . -}}
{{- end -}}

{{/*
The sidecar's resources (the dict the container is rendered with): .Values.resources, without a
CPU request where "BrokerResources" says the broker container has no CPU request or limit. The
kubelet weighs a pod's CPU by the sum of its containers' requests (none: the minimum, 2 shares), so
the sidecar's own 50m would make a pod of a broker without a request some 25 times heavier than
its neighbours (docs/design.md, "The sidecar's CPU request"); warmup-inject applies the same rule
(internal/inject/edit/sidecarcpu.go), and a test holds the two equal.
*/}}
{{- define "pinot-broker-warmup.sidecarResources" -}}
{{- $res := deepCopy (default dict .Values.resources) -}}
{{- if hasKey . "BrokerResources" -}}
{{- $b := default dict .BrokerResources -}}
{{- if not (or (dig "requests" "cpu" "" $b) (dig "limits" "cpu" "" $b)) -}}
{{- if hasKey $res "requests" -}}
{{- $_ := unset $res.requests "cpu" -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- toYaml $res -}}
{{- end -}}
