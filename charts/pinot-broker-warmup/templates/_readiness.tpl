{{/*
brokerReadiness: who decides when a broker pod enters its Service. With decidedBy: sidecar the
readiness probes of both containers (and the broker's startupProbe) start at once and sample every
brokerReadiness.periodSeconds (a probe already faster keeps its period); failureThreshold is raised
so that a failure must last as long as before: period x failureThreshold is kept (for a startupProbe,
initialDelaySeconds + period x failureThreshold, the time the broker has to turn healthy before the
kubelet restarts it), rounded up. A livenessProbe is never passed here: shortening it would let the
kubelet kill a cold broker that is slow to answer /health. warmup-inject applies the same rule to
the official chart's broker container (internal/inject/edit/readiness.go; a test holds them equal).
decidedBy: auto (the default) is sidecar or chart by the broker's resources:
pinot-broker-warmup.decidedBy.

Umbrella charts write, in their broker container:
  readinessProbe:
    httpGet: {path: /health, port: 8099}
    {{- include "pinot-broker-warmup.brokerReadinessProbe" (dict "Values" <this chart's values> "probe" <the probe's timing, a dict> "BrokerResources" <the broker container's resources>) | nindent 4 }}
and pinot-broker-warmup.brokerStartupProbe likewise for a startupProbe, and give the same
"BrokerResources" in the dict they include the sidecar's container with (_pod.tpl). With decidedBy
resolved to chart (or the chart disabled) the given fields come out as they went in.
*/}}
{{- define "pinot-broker-warmup.brokerReadinessProbe" -}}
{{- include "pinot-broker-warmup.gatedProbe" (set (pick . "Values" "probe" "BrokerResources") "startup" false) -}}
{{- end -}}

{{- define "pinot-broker-warmup.brokerStartupProbe" -}}
{{- include "pinot-broker-warmup.gatedProbe" (set (pick . "Values" "probe" "BrokerResources") "startup" true) -}}
{{- end -}}

{{/*
brokerReadiness.decidedBy resolved for one broker (dict "Values" <this chart's values>
"BrokerResources" <the broker container's resources as configured, before any boost>): chart or
sidecar as set; auto is sidecar when the broker has no CPU limit (resources.limits.cpu) or
brokerCpuBoost is on, else chart. auto without "BrokerResources" fails: nothing else here knows the
broker. warmup-inject resolves the same rule from the StatefulSet (internal/inject/edit/decidedby.go; a
test holds them equal) and renders this chart with the result.
*/}}
{{- define "pinot-broker-warmup.decidedBy" -}}
{{- $by := .Values.brokerReadiness.decidedBy -}}
{{- if eq $by "auto" -}}
{{- if not (hasKey . "BrokerResources") -}}
{{- fail "pinot-broker-warmup: brokerReadiness.decidedBy is auto, which decides from the broker container's resources (sidecar when it has no CPU limit or brokerCpuBoost is on, else chart), and none were given: add \"BrokerResources\" <the broker's resources> to the dict you include pinot-broker-warmup.containers (or .initContainers, .container) and .brokerReadinessProbe with, or set brokerReadiness.decidedBy to chart or sidecar" -}}
{{- end -}}
{{- $limits := get (default dict .BrokerResources) "limits" | default dict -}}
{{- $cpu := toString (get $limits "cpu" | default "") -}}
{{- $by = ternary "sidecar" "chart" (or (eq $cpu "") .Values.brokerCpuBoost.enabled) -}}
{{- end -}}
{{- $by -}}
{{- end -}}

{{/*
One probe's fields (the dict "probe"), rewritten when the sidecar decides readiness. A field the
probe omits takes Kubernetes' default (initialDelaySeconds 0, periodSeconds 10, failureThreshold 3)
and is written only when the rewrite changes it. Empty output for an empty probe.
*/}}
{{- define "pinot-broker-warmup.gatedProbe" -}}
{{- $p := deepCopy (.probe | default dict) -}}
{{- $r := .Values.brokerReadiness -}}
{{- if and .Values.enabled (eq (include "pinot-broker-warmup.decidedBy" .) "sidecar") -}}
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
