{{/*
The broker CPU boost (brokerCpuBoost): the broker container's CPU raised for its start, given back
by the sidecar resizing its own pod once the evidence says so. One definition for both paths:
warmup-inject renders these from its embedded copy (with brokerCpuBoost.target, statefulSetName
and maxReplicas read from the StatefulSet); an umbrella chart includes them (see README.md).
*/}}

{{/* A CPU quantity (500m, 2, 1.5) as whole millicores, rounded up. */}}
{{- define "pinot-broker-warmup.milliCpu" -}}
{{- $q := toString . -}}
{{- if hasSuffix "m" $q -}}
{{- trimSuffix "m" $q | atoi -}}
{{- else -}}
{{- mulf (float64 $q) 1000 | ceil | int -}}
{{- end -}}
{{- end -}}

{{/*
The boost, computed and checked from this chart's values (.): a YAML map of the broker
container's boosted CPU (request, limit: what the pod is created with) and what the sidecar gives
back (giveBackRequest, giveBackLimit: the boosted fields' configured values). Empty when off.
The broker's configured request defaults to its limit, as the API server defaults it: a broker
with a CPU limit only is created with that limit as its explicit request, so that raising the
limit does not raise the request with it.
*/}}
{{- define "pinot-broker-warmup.cpuBoost" -}}
{{- $b := .brokerCpuBoost -}}
{{- if and .enabled $b.enabled -}}
{{- $milli := "pinot-broker-warmup.milliCpu" -}}
{{- /* Quantities may be written as numbers (cores): read each as text. */ -}}
{{- $tlim := toString (default "" $b.target.limit) -}}
{{- $treq := toString (default $tlim $b.target.request) -}}
{{- $blim := toString (default "" $b.cpu.limit) -}}
{{- $breq := toString (default "" $b.cpu.request) -}}
{{- if not (or $breq $blim) -}}
{{- fail "pinot-broker-warmup: brokerCpuBoost.enabled is true but neither brokerCpuBoost.cpu.limit nor cpu.request is set: set the broker container's boosted CPU limit (and/or request)" -}}
{{- end -}}
{{- $req := $treq -}}
{{- $lim := $tlim -}}
{{- if $blim -}}
{{- if not $tlim -}}
{{- fail (printf "pinot-broker-warmup: brokerCpuBoost.cpu.limit is %s but the broker container has no CPU limit (brokerCpuBoost.target.limit) to give back to, and a resize cannot remove a limit: give the broker a CPU limit, or boost only cpu.request" $blim) -}}
{{- end -}}
{{- if le (include $milli $blim | atoi) (include $milli $tlim | atoi) -}}
{{- fail (printf "pinot-broker-warmup: brokerCpuBoost.cpu.limit (%s) must be above the broker container's CPU limit (%s): a boost at or below it gives nothing" $blim $tlim) -}}
{{- end -}}
{{- $lim = $blim -}}
{{- end -}}
{{- if $breq -}}
{{- if not $treq -}}
{{- fail (printf "pinot-broker-warmup: brokerCpuBoost.cpu.request is %s but the broker container has no CPU request (brokerCpuBoost.target.request) to give back to, and a resize cannot remove a request: give the broker a CPU request, or boost only cpu.limit" $breq) -}}
{{- end -}}
{{- if le (include $milli $breq | atoi) (include $milli $treq | atoi) -}}
{{- fail (printf "pinot-broker-warmup: brokerCpuBoost.cpu.request (%s) must be above the broker container's CPU request (%s): a boost at or below it gives nothing" $breq $treq) -}}
{{- end -}}
{{- $req = $breq -}}
{{- end -}}
{{- if and $lim (gt (include $milli $req | atoi) (include $milli $lim | atoi)) -}}
{{- fail (printf "pinot-broker-warmup: the boosted CPU request (%s) would be above the boosted CPU limit (%s): raise brokerCpuBoost.cpu.limit too" $req $lim) -}}
{{- end -}}
request: {{ $req | quote }}
limit: {{ $lim | quote }}
giveBackRequest: {{ ternary $treq "" (not (empty $breq)) | quote }}
giveBackLimit: {{ ternary $tlim "" (not (empty $blim)) | quote }}
{{- end -}}
{{- end -}}

{{/*
The ServiceAccount the broker pods run as and the Role is bound to (values .). Never the
namespace's default: every pod that names no ServiceAccount runs as it, and would hold the right.
*/}}
{{- define "pinot-broker-warmup.serviceAccountName" -}}
{{- $b := .brokerCpuBoost -}}
{{- $name := "" -}}
{{- if $b.serviceAccount.create -}}
{{- $name = default (printf "%s-warmup" $b.statefulSetName) $b.serviceAccount.name -}}
{{- else -}}
{{- $name = required "pinot-broker-warmup: brokerCpuBoost.serviceAccount.name is required when serviceAccount.create is false: the ServiceAccount the broker pods run as, which the Role is bound to" $b.serviceAccount.name -}}
{{- if or $b.serviceAccount.annotations $b.serviceAccount.imagePullSecrets -}}
{{- fail (printf "pinot-broker-warmup: brokerCpuBoost.serviceAccount.annotations and imagePullSecrets are for the ServiceAccount the boost creates; with serviceAccount.create false the broker pods keep %s as it is: give them to it there" $name) -}}
{{- end -}}
{{- end -}}
{{- if eq $name "default" -}}
{{- fail "pinot-broker-warmup: brokerCpuBoost would bind the resize right to the ServiceAccount default, which every pod of the namespace that names no ServiceAccount runs as: set brokerCpuBoost.serviceAccount.create: true (the broker pods get a ServiceAccount of their own, the default), or run the broker pods as a ServiceAccount of theirs and name it" -}}
{{- end -}}
{{- $name -}}
{{- end -}}

{{/*
The boost's version check (dict "Values" <values> "Capabilities" .Capabilities; nothing without
Capabilities): in-place pod resize is on by default from Kubernetes 1.33 (the admission policy
needs 1.30). Below it the pods would start boosted and the resize would be a 404.
*/}}
{{- define "pinot-broker-warmup.cpuBoostKubeVersion" -}}
{{- if and .Values.enabled .Values.brokerCpuBoost.enabled .Capabilities -}}
{{- if not (semverCompare ">=1.33.0-0" .Capabilities.KubeVersion.Version) -}}
{{- fail (printf "pinot-broker-warmup: brokerCpuBoost needs Kubernetes >= 1.33 (in-place pod resize, on by default from 1.33; below it the pods would start boosted and never be given back), this cluster is %s: set brokerCpuBoost.enabled: false" .Capabilities.KubeVersion.Version) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
The broker pod's identity with the boost (dict "Values" <values>): serviceAccountName and, with a
ServiceAccount of its own, no automounted token (the sidecar mounts its own; the broker gets none).
Empty when off. An umbrella chart writes it in the broker pod spec, in place of serviceAccountName.
*/}}
{{- define "pinot-broker-warmup.podServiceAccount" -}}
{{- $v := .Values -}}
{{- if and $v.enabled $v.brokerCpuBoost.enabled -}}
serviceAccountName: {{ include "pinot-broker-warmup.serviceAccountName" $v }}
{{- if $v.brokerCpuBoost.serviceAccount.create }}
automountServiceAccountToken: false
{{- end }}
{{- end -}}
{{- end -}}

{{/*
The broker container's resizePolicy with the boost: its CPU resized in place, without a restart.
The whole key, or nothing when off (dict "Values" <values>).
*/}}
{{- define "pinot-broker-warmup.brokerResizePolicy" -}}
{{- if and .Values.enabled .Values.brokerCpuBoost.enabled -}}
resizePolicy:
  - resourceName: cpu
    restartPolicy: NotRequired
{{- end -}}
{{- end -}}

{{/*
A memory quantity (1Gi, 1024Mi, 1073741824, 1G, 1.5Gi, 129e6, a YAML number) as an exact amount of
bytes, one spelling per amount, so that two quantities are equal as the API server compares them
when their bytes are: an integer, or N "e-" P for a fraction (N not a multiple of 10). Sprig has
no quantity parser; int64 arithmetic, refused rather than wrapped beyond it (8 EiB).
*/}}
{{- define "pinot-broker-warmup.bytes" -}}
{{- $q := toString . -}}
{{- $bad := printf "pinot-broker-warmup: memory %q is not a Kubernetes quantity below 8Ei (1Gi, 1024Mi, 1073741824, 1G)" $q -}}
{{- if not (regexMatch `^([0-9]+(\.[0-9]*)?|\.[0-9]+)([KMGTPE]i|[numkMGTPE]|[eE][+-]?[0-9]+)?$` $q) -}}
{{- fail $bad -}}
{{- end -}}
{{- $num := regexFind `^([0-9]+(\.[0-9]*)?|\.[0-9]+)` $q -}}
{{- $suffix := trimPrefix $num $q -}}
{{- $parts := splitList "." $num -}}
{{- $frac := ternary (last $parts) "" (gt (len $parts) 1) -}}
{{- $digits := default "0" (regexReplaceAll "^0+" (print (first $parts) $frac) "") -}}
{{- if gt (len $digits) 18 -}}
{{- fail $bad -}}
{{- end -}}
{{- /* bytes = digits x binary x 10^-p */ -}}
{{- $n := atoi $digits -}}
{{- $binary := dict "Ki" 1024 "Mi" 1048576 "Gi" 1073741824 "Ti" 1099511627776 "Pi" 1125899906842624 "Ei" 1152921504606846976 -}}
{{- $decimal := dict "" 0 "n" -9 "u" -6 "m" -3 "k" 3 "M" 6 "G" 9 "T" 12 "P" 15 "E" 18 -}}
{{- $exp := 0 -}}
{{- if hasKey $binary $suffix -}}
{{- $m := get $binary $suffix -}}
{{- $prod := mul $n $m -}}
{{- if ne (div $prod $m) $n -}}
{{- fail $bad -}}
{{- end -}}
{{- $n = $prod -}}
{{- else if hasKey $decimal $suffix -}}
{{- $exp = get $decimal $suffix -}}
{{- else -}}
{{- $exp = atoi (substr 1 (len $suffix) $suffix) -}}
{{- end -}}
{{- $p := sub (len $frac) $exp -}}
{{- if or (lt $p -40) (gt $p 60) -}}
{{- fail $bad -}}
{{- end -}}
{{- range until (int (max 0 (sub 0 $p))) -}}
{{- $prod := mul $n 10 -}}
{{- if ne (div $prod 10) $n -}}
{{- fail $bad -}}
{{- end -}}
{{- $n = $prod -}}
{{- end -}}
{{- range until (int (max 0 $p)) -}}
{{- if and (gt $p 0) (eq (mod $n 10) 0) -}}
{{- $n = div $n 10 -}}
{{- $p = sub $p 1 -}}
{{- end -}}
{{- end -}}
{{- if gt $p 0 -}}
{{- printf "%de-%d" $n $p -}}
{{- else -}}
{{- printf "%d" $n -}}
{{- end -}}
{{- end -}}

{{/*
Guaranteed-shaped resources: CPU and memory limits, requests (defaulting to them) equal as
amounts (1Gi is 1024Mi), not as written.
*/}}
{{- define "pinot-broker-warmup.guaranteedShape" -}}
{{- $req := default dict .requests -}}
{{- $lim := default dict .limits -}}
{{- if and (hasKey $lim "cpu") (hasKey $lim "memory") -}}
{{- $rc := default (get $lim "cpu") (get $req "cpu") -}}
{{- $rm := default (get $lim "memory") (get $req "memory") -}}
{{- if and (eq (include "pinot-broker-warmup.milliCpu" $rc) (include "pinot-broker-warmup.milliCpu" (get $lim "cpu"))) (eq (include "pinot-broker-warmup.bytes" $rm) (include "pinot-broker-warmup.bytes" (get $lim "memory"))) -}}
true
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
The broker container's resources for an umbrella chart (dict "Values" <values> "Resources" <the
broker's resources>): as given, with the boosted CPU when the boost is on. brokerCpuBoost.target
must be the broker's CPU as given. The QoS class a resize may not change is kept: when the sidecar
is Guaranteed-shaped (the pod's other containers are taken to be too), the broker's shape must be
the same boosted and given back. Memory quantities are compared as amounts (1Gi is 1024Mi).
*/}}
{{- define "pinot-broker-warmup.brokerResources" -}}
{{- $v := .Values -}}
{{- $res := deepCopy (default dict .Resources) -}}
{{- $boost := include "pinot-broker-warmup.cpuBoost" $v | fromYaml -}}
{{- if $boost -}}
{{- $t := $v.brokerCpuBoost.target -}}
{{- $req := default dict $res.requests -}}
{{- $lim := default dict $res.limits -}}
{{- if or (ne (toString (default "" (get $req "cpu"))) (toString (default "" $t.request))) (ne (toString (default "" (get $lim "cpu"))) (toString (default "" $t.limit))) -}}
{{- fail (printf "pinot-broker-warmup: brokerCpuBoost.target (request %q, limit %q) must be the broker container's CPU as configured (request %q, limit %q): the sidecar gives the CPU back to it" (toString (default "" $t.request)) (toString (default "" $t.limit)) (toString (default "" (get $req "cpu"))) (toString (default "" (get $lim "cpu")))) -}}
{{- end -}}
{{- $before := include "pinot-broker-warmup.guaranteedShape" $res -}}
{{- $_ := set $req "cpu" $boost.request -}}
{{- if $boost.limit -}}
{{- $_ := set $lim "cpu" $boost.limit -}}
{{- end -}}
{{- $_ := set $res "requests" $req -}}
{{- if $lim -}}
{{- $_ := set $res "limits" $lim -}}
{{- end -}}
{{- if and (include "pinot-broker-warmup.guaranteedShape" $v.resources) (ne $before (include "pinot-broker-warmup.guaranteedShape" $res)) -}}
{{- fail "pinot-broker-warmup: the boost would change the broker pod's QoS class (its CPU request equals its limit in a Guaranteed pod, or would come to), and a resize may not change it, so the give-back would be refused: boost the CPU request and limit to the same value, or keep the boosted request below the boosted limit" -}}
{{- end -}}
{{- end -}}
{{- toYaml $res -}}
{{- end -}}

{{/*
The objects the boost needs beside the pod (dict "Values" <values> "Release" .Release): the
ServiceAccount (serviceAccount.create, with the annotations and imagePullSecrets given for it), a
Role allowing get on the broker pods and patch on their resize subresource, by name, and nothing
else, its RoleBinding, and the admission policy that confines each resize to the caller's own pod
and the broker's CPU (_cpuboost_policy.tpl). A multi-document YAML stream, empty when off.
*/}}
{{- define "pinot-broker-warmup.cpuBoostObjects" -}}
{{- $v := .Values -}}
{{- $b := $v.brokerCpuBoost -}}
{{- if and $v.enabled $b.enabled -}}
{{- if not $b.statefulSetName -}}
{{- fail "pinot-broker-warmup: brokerCpuBoost.statefulSetName is required: the broker StatefulSet whose pods the Role names (warmup-inject sets it)" -}}
{{- end -}}
{{- if lt (int $b.maxReplicas) 1 -}}
{{- fail "pinot-broker-warmup: brokerCpuBoost.maxReplicas must be 1 or more: the Role names the pods <statefulSetName>-0 .. -(maxReplicas-1) (warmup-inject takes the StatefulSet's replicas)" -}}
{{- end -}}
{{- $sa := include "pinot-broker-warmup.serviceAccountName" $v -}}
{{- $ns := .Release.Namespace -}}
{{- $pods := list -}}
{{- range $i := until (int $b.maxReplicas) -}}
{{- $pods = append $pods (printf "%s-%d" $b.statefulSetName $i) -}}
{{- end -}}
{{- $name := printf "%s-warmup-cpu-boost" $b.statefulSetName -}}
{{- if $b.serviceAccount.create }}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ $sa }}
  namespace: {{ $ns }}
  labels:
    app.kubernetes.io/name: pinot-broker-warmup
    app.kubernetes.io/component: cpu-boost
  {{- with $b.serviceAccount.annotations }}
  # The pods' previous ServiceAccount's (a cloud workload identity), carried over.
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
# The broker pods' identity, holding only the resize right; its token is projected into the
# sidecar container alone.
automountServiceAccountToken: false
{{- with $b.serviceAccount.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
---
{{- end }}
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: {{ $name }}
  namespace: {{ $ns }}
  labels:
    app.kubernetes.io/name: pinot-broker-warmup
    app.kubernetes.io/component: cpu-boost
# What the sidecar needs to give its own pod's CPU boost back, and nothing more: read the pod
# (its start, the broker's CPU, the kubelet's report) and patch its resize subresource, on the
# broker pods by name. Not pods (no spec edit), not pods/status, not list or watch.
rules:
  - apiGroups: [""]
    resources: ["pods"]
    verbs: ["get"]
    resourceNames: {{ toJson $pods }}
  - apiGroups: [""]
    resources: ["pods/resize"]
    verbs: ["patch"]
    resourceNames: {{ toJson $pods }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: {{ $name }}
  namespace: {{ $ns }}
  labels:
    app.kubernetes.io/name: pinot-broker-warmup
    app.kubernetes.io/component: cpu-boost
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: {{ $name }}
subjects:
  - kind: ServiceAccount
    name: {{ $sa }}
    namespace: {{ $ns }}
---
{{ include "pinot-broker-warmup.cpuBoostPolicy" . }}
{{- end -}}
{{- end -}}

{{/* Where the sidecar reads its ServiceAccount token and the cluster CA. */}}
{{- define "pinot-broker-warmup.kubeApiDir" -}}
/var/run/secrets/kubernetes.io/serviceaccount
{{- end -}}
