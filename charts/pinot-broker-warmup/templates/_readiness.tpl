{{/*
brokerReadiness: who decides when a broker pod enters its Service. With decidedBy: sidecar the
readiness probes of both containers (and the broker's startupProbe) start at once and sample every
brokerReadiness.periodSeconds (a probe already faster keeps its period); failureThreshold is raised
so that a failure must last as long as before: period x failureThreshold is kept (for a startupProbe,
initialDelaySeconds + period x failureThreshold, the time the broker has to turn healthy before the
kubelet restarts it), rounded up. A livenessProbe is never passed here: shortening it would let the
kubelet kill a cold broker that is slow to answer /health. warmup-inject applies the same rule to
the official chart's broker container (internal/inject/readiness.go; a test holds them equal).

Umbrella charts write, in their broker container:
  readinessProbe:
    httpGet: {path: /health, port: 8099}
    {{- include "pinot-broker-warmup.brokerReadinessProbe" (dict "Values" <this chart's values> "probe" <the probe's timing, a dict>) | nindent 4 }}
and pinot-broker-warmup.brokerStartupProbe likewise for a startupProbe. With decidedBy: chart (or the
chart disabled) the given fields come out as they went in.
*/}}
{{- define "pinot-broker-warmup.brokerReadinessProbe" -}}
{{- include "pinot-broker-warmup.gatedProbe" (dict "Values" .Values "probe" .probe "startup" false) -}}
{{- end -}}

{{- define "pinot-broker-warmup.brokerStartupProbe" -}}
{{- include "pinot-broker-warmup.gatedProbe" (dict "Values" .Values "probe" .probe "startup" true) -}}
{{- end -}}

{{/*
One probe's fields (the dict "probe"), rewritten when the sidecar decides readiness. A field the
probe omits takes Kubernetes' default (initialDelaySeconds 0, periodSeconds 10, failureThreshold 3)
and is written only when the rewrite changes it. Empty output for an empty probe.
*/}}
{{- define "pinot-broker-warmup.gatedProbe" -}}
{{- $p := deepCopy (.probe | default dict) -}}
{{- $r := .Values.brokerReadiness -}}
{{- if and .Values.enabled (eq $r.decidedBy "sidecar") -}}
{{- $delay := 0 -}}
{{- if hasKey $p "initialDelaySeconds" }}{{ $delay = int $p.initialDelaySeconds }}{{ end -}}
{{- $period := 10 -}}
{{- if hasKey $p "periodSeconds" }}{{ $period = int $p.periodSeconds }}{{ end -}}
{{- $failures := 3 -}}
{{- if hasKey $p "failureThreshold" }}{{ $failures = int $p.failureThreshold }}{{ end -}}
{{- $newPeriod := int (min $period (int $r.periodSeconds)) -}}
{{- $window := mul $period $failures -}}
{{- if .startup }}{{ $window = add $window $delay }}{{ end -}}
{{- $newFailures := int (div (add $window (sub $newPeriod 1)) $newPeriod) -}}
{{- $fields := dict "initialDelaySeconds" (list 0 0) "periodSeconds" (list $newPeriod 10) "failureThreshold" (list $newFailures 3) -}}
{{- range $k, $want := $fields -}}
{{- if or (hasKey $p $k) (ne (index $want 0) (index $want 1)) -}}
{{- $_ := set $p $k (index $want 0) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if $p }}{{ toYaml $p }}{{ end -}}
{{- end -}}
