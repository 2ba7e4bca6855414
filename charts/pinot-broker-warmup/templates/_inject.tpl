{{/*
What warmup-inject splices into each broker StatefulSet. The post-renderer renders this
template from its embedded copy of the chart, with the broker port (and, when unset, the
controller URL) it found in the manifests set as values. Keeping the shape here means the
binary does not know the container, its placement or its volumes: only this chart does.
*/}}
{{- define "pinot-broker-warmup.injection" -}}
containers:
  {{- include "pinot-broker-warmup.containers" . | nindent 2 }}
initContainers:
  {{- include "pinot-broker-warmup.initContainers" . | nindent 2 }}
volumes:
  {{- include "pinot-broker-warmup.volumes" . | nindent 2 }}
brokerConfig: {{ include "pinot-broker-warmup.brokerConfig" . | quote }}
brokerJavaOpts: {{ include "pinot-broker-warmup.brokerJavaOpts" . | quote }}
brokerVolumeMounts:
  {{- include "pinot-broker-warmup.brokerVolumeMounts" . | nindent 2 }}
brokerCpu: {{ include "pinot-broker-warmup.cpuBoost" .Values | fromYaml | toJson }}
podServiceAccount: {{ include "pinot-broker-warmup.podServiceAccount" . | fromYaml | toJson }}
cpuBoostObjects: {{ include "pinot-broker-warmup.cpuBoostObjects" . | quote }}
{{- end -}}
