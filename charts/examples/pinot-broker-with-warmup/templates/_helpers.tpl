{{/*
brokerCpuBoost's values that only this chart knows: the StatefulSet whose pods the Role names,
its replicas, and the broker's CPU as configured (what the sidecar gives back to), from
broker.resources so that it is written once. warmup-inject reads the same from the manifests.
*/}}
{{- define "pinot-broker-with-warmup.cpuBoostValues" -}}
{{- $b := (index .Values "pinot-broker-warmup").brokerCpuBoost -}}
{{- $_ := set $b "statefulSetName" (printf "%s-broker" .Release.Name) -}}
{{- if not (int $b.maxReplicas) -}}
{{- $_ := set $b "maxReplicas" (int .Values.broker.replicas) -}}
{{- end -}}
{{- $res := default dict .Values.broker.resources -}}
{{- $_ := set $b "target" (dict "request" (toString (default "" (get (default dict $res.requests) "cpu"))) "limit" (toString (default "" (get (default dict $res.limits) "cpu")))) -}}
{{- end -}}
