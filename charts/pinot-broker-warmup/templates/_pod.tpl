{{/*
Pod-spec fragments for the broker pod, each a YAML list (empty when the chart is disabled), so a
broker StatefulSet template can write:
  initContainers:
    {{- include "pinot-broker-warmup.initContainers" $ctx | nindent 4 }}
  containers:
    - name: broker
      ...
    {{- include "pinot-broker-warmup.containers" $ctx | nindent 4 }}
  volumes:
    {{- include "pinot-broker-warmup.volumes" $ctx | nindent 4 }}
where $ctx is (dict "Values" <this chart's values> "Capabilities" .Capabilities "BrokerResources"
<the broker container's resources>): brokerReadiness.decidedBy auto decides from the last (_readiness.tpl).
The sidecar lands in exactly one of the two container lists, chosen by nativeSidecar.
*/}}

{{- define "pinot-broker-warmup.containers" -}}
{{- if and .Values.enabled (not .Values.nativeSidecar) -}}
- {{ include "pinot-broker-warmup.container" . | nindent 2 | trim }}
{{- end -}}
{{- end -}}

{{- define "pinot-broker-warmup.initContainers" -}}
{{- if and .Values.enabled .Values.nativeSidecar -}}
- {{ include "pinot-broker-warmup.container" . | nindent 2 | trim }}
{{- end -}}
{{- end -}}

{{- define "pinot-broker-warmup.volumes" -}}
{{- include "pinot-broker-warmup.volumeList" . | trim -}}
{{- end -}}

{{- define "pinot-broker-warmup.volumeList" -}}
{{- if and .Values.enabled .Values.auth.existingSecret }}
- name: warmup-auth
  secret:
    secretName: {{ .Values.auth.existingSecret }}
    # Only the header key, read-only for everyone in the pod (0444): the sidecar runs as 65532.
    defaultMode: 292
    items:
      - key: {{ .Values.auth.key }}
        path: {{ .Values.auth.key }}
{{- end }}
{{- $aot := .Values.brokerJvm.aotCache -}}
{{- if and .Values.enabled $aot.enabled }}
- name: warmup-aot-cache
  {{- toYaml $aot.volume | nindent 2 }}
# The broker JVM's -Xlog:aot file, read by the sidecar (WARMUP_BROKER_AOT_LOG).
- name: warmup-aot-log
  emptyDir:
    sizeLimit: 64Mi
{{- end }}
{{- if and .Values.enabled .Values.brokerCpuBoost.enabled }}
# The sidecar's ServiceAccount token (rotated by the kubelet) and the cluster CA, mounted in the
# sidecar alone, for resizing its own pod (brokerCpuBoost).
- name: warmup-kube-api
  projected:
    defaultMode: 292
    sources:
      - serviceAccountToken:
          path: token
          expirationSeconds: 3600
      - configMap:
          name: kube-root-ca.crt
          items:
            - key: ca.crt
              path: ca.crt
{{- end -}}
{{- end -}}

{{/*
Volume mounts for the broker container (a YAML list, empty unless brokerJvm.aotCache is enabled):
warmup-inject appends them to the broker container's volumeMounts; an umbrella chart writes
  volumeMounts:
    ...
    {{- include "pinot-broker-warmup.brokerVolumeMounts" $ctx | nindent 4 }}
*/}}
{{- define "pinot-broker-warmup.brokerVolumeMounts" -}}
{{- $aot := .Values.brokerJvm.aotCache -}}
{{- if and .Values.enabled $aot.enabled -}}
- name: warmup-aot-cache
  mountPath: {{ $aot.mountPath }}
  {{- if eq $aot.mode "use" }}
  readOnly: true
  {{- end }}
- name: warmup-aot-log
  mountPath: {{ include "pinot-broker-warmup.aotLogDir" . }}
{{- end -}}
{{- end -}}

{{/* Where the broker JVM writes its AOT log, in the broker and the sidecar alike. */}}
{{- define "pinot-broker-warmup.aotLogDir" -}}
/var/log/pinot-aot
{{- end -}}

{{/*
Lines to append to pinot-broker.conf for the loopback-only probe listener. Pinot builds one
listener per name in pinot.broker.client.access.protocols, next to the queryPort one (which keeps
the broker's instance id). If the broker config already sets access.protocols, add the name there
instead of repeating the key: warmup-inject does that merge itself.
*/}}
{{- define "pinot-broker-warmup.brokerConfig" -}}
{{- if and .Values.enabled .Values.loopbackListener.enabled -}}
{{- $p := printf "pinot.broker.client.access.protocols.%s" .Values.loopbackListener.name -}}
pinot.broker.client.access.protocols={{ .Values.loopbackListener.name }}
{{ $p }}.protocol=http
{{ $p }}.host=127.0.0.1
{{ $p }}.port={{ int .Values.loopbackListener.port }}
{{- end -}}
{{- end -}}

{{/*
JVM options to append to the broker's own (one line, empty when there are none or the chart is
disabled). warmup-inject appends them to the broker container's brokerJvm.javaOptsEnv variable,
once; an umbrella chart writes them after its broker JVM options, e.g.
  value: {{ printf "%s %s" .Values.broker.jvmOpts (include "pinot-broker-warmup.brokerJavaOpts" $ctx) | trim | quote }}
*/}}
{{- define "pinot-broker-warmup.brokerJavaOpts" -}}
{{- $opts := list -}}
{{- if .Values.enabled -}}
{{- if .Values.brokerJvm.c1Only -}}
{{- $opts = append $opts "-XX:TieredStopAtLevel=1" -}}
{{- end -}}
{{- $aot := .Values.brokerJvm.aotCache -}}
{{- if $aot.enabled -}}
{{- $file := printf "%s/%s.aot" (trimSuffix "/" $aot.mountPath) $aot.key -}}
{{- /* Two modes: the JVM refuses AOTCache and AOTCacheOutput together. */ -}}
{{- $opts = append $opts (printf "-XX:%s=%s" (ternary "AOTCacheOutput" "AOTCache" (eq $aot.mode "train")) $file) -}}
{{- $opts = append $opts (printf "-Xlog:aot=info,cds=info:file=%s/aot.log" (include "pinot-broker-warmup.aotLogDir" .)) -}}
{{- end -}}
{{- end -}}
{{- join " " $opts -}}
{{- end -}}
