{{/*
The boost's admission policy (dict "Values" <values> "Release" .Release): a
ValidatingAdmissionPolicy and its binding that narrow what the Role grants. RBAC names pods, not
callers: the Role lets the boost's ServiceAccount resize every broker pod of the StatefulSet, any
container, any resource. The policy holds each resize sent by that ServiceAccount to a pod of the
StatefulSet to the sidecar's own job: the pod its token is bound to (the kubelet binds the
projected token to the pod; the API server puts the pod's name and UID in the request's user
info), the broker container's CPU only, between the broker's own CPU and the boost. It denies; it
grants nothing. Reads are not admitted, so `get` stays as the Role has it.
Cluster-scoped, so named by namespace and StatefulSet. Messages avoid RBAC's wording ("cannot",
"resource"): the sidecar tells the two refusals apart by it.
*/}}
{{- define "pinot-broker-warmup.cpuBoostPolicy" -}}
{{- $v := .Values -}}
{{- $b := $v.brokerCpuBoost -}}
{{- $boost := include "pinot-broker-warmup.cpuBoost" $v | fromYaml -}}
{{- $ns := .Release.Namespace -}}
{{- $name := printf "%s.%s-warmup-cpu-boost" $ns $b.statefulSetName -}}
{{- $sa := include "pinot-broker-warmup.serviceAccountName" $v -}}
{{- $broker := $v.brokerContainerName -}}
{{- /* Each bound: the broker's own CPU (what is given back to) and the boost. */ -}}
{{- $reqLo := default $boost.request $boost.giveBackRequest -}}
{{- $limLo := default $boost.limit $boost.giveBackLimit -}}
{{- $prefix := "warmup-sidecar CPU boost: " -}}
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: {{ $name }}
  labels:
    app.kubernetes.io/name: pinot-broker-warmup
    app.kubernetes.io/component: cpu-boost
spec:
  # A rule that cannot be evaluated refuses the resize rather than let it through.
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: ["v1"]
        operations: ["UPDATE"]
        resources: ["pods/resize"]
  # The boost's ServiceAccount (every pod running as it, when it is shared) on the StatefulSet's
  # pods; other callers and other pods are not this policy's.
  matchConditions:
    - name: boost-service-account
      expression: >-
        request.userInfo.username == 'system:serviceaccount:{{ $ns }}:{{ $sa }}'
    - name: statefulset-pod
      expression: >-
        object.metadata.name.matches(r'^{{ regexQuoteMeta $b.statefulSetName }}-[0-9]+$')
  variables:
    - name: boundPod
      expression: >-
        has(request.userInfo.extra) && 'authentication.kubernetes.io/pod-name' in request.userInfo.extra
        ? request.userInfo.extra['authentication.kubernetes.io/pod-name'] : []
    - name: boundUID
      expression: >-
        has(request.userInfo.extra) && 'authentication.kubernetes.io/pod-uid' in request.userInfo.extra
        ? request.userInfo.extra['authentication.kubernetes.io/pod-uid'] : []
    - name: broker
      expression: "object.spec.containers.filter(c, c.name == '{{ $broker }}')"
    - name: oldBroker
      expression: "oldObject.spec.containers.filter(c, c.name == '{{ $broker }}')"
    {{- range $var, $of := dict "requests" (list "broker" "requests") "limits" (list "broker" "limits") "oldRequests" (list "oldBroker" "requests") "oldLimits" (list "oldBroker" "limits") }}
    - name: {{ $var }}
      expression: >-
        variables.{{ index $of 0 }}.size() == 1 && has(variables.{{ index $of 0 }}[0].resources)
        && has(variables.{{ index $of 0 }}[0].resources.{{ index $of 1 }}) ? variables.{{ index $of 0 }}[0].resources.{{ index $of 1 }} : {}
    {{- end }}
  validations:
    - expression: "variables.boundPod == [object.metadata.name] && variables.boundUID == [object.metadata.uid]"
      reason: Forbidden
      message: "{{ $prefix }}a sidecar may resize only its own pod, the one its token is bound to"
      messageExpression: >-
        '{{ $prefix }}a sidecar may resize only its own pod, the one its token is bound to: this token is '
        + (variables.boundPod.size() == 0 ? 'bound to no pod' : 'bound to pod ' + variables.boundPod[0])
        + ', not to ' + object.metadata.name
    - expression: >-
        object.spec.containers.all(c, c.name == '{{ $broker }}' || oldObject.spec.containers.exists(o, o.name == c.name
        && (has(c.resources) ? c.resources : {}) == (has(o.resources) ? o.resources : {})))
        && (!has(object.spec.initContainers) || object.spec.initContainers.all(c, has(oldObject.spec.initContainers)
        && oldObject.spec.initContainers.exists(o, o.name == c.name
        && (has(c.resources) ? c.resources : {}) == (has(o.resources) ? o.resources : {}))))
        && (has(object.spec.resources) ? object.spec.resources : {}) == (has(oldObject.spec.resources) ? oldObject.spec.resources : {})
      reason: Forbidden
      message: "{{ $prefix }}only the broker container's CPU may be resized: every other container, init container and the pod's own resources stay as they are"
    - expression: >-
        [[variables.requests, variables.oldRequests], [variables.limits, variables.oldLimits]].all(p,
        p[0].all(k, k == 'cpu' || (k in p[1] && quantity(p[0][k]).compareTo(quantity(p[1][k])) == 0))
        && p[1].all(k, k == 'cpu' || k in p[0]))
      reason: Forbidden
      message: "{{ $prefix }}the broker container's memory (every one of its resources but cpu) stays as it is"
    - expression: >-
        'cpu' in variables.requests
        && quantity(variables.requests.cpu).compareTo(quantity('{{ $reqLo }}')) >= 0
        && quantity(variables.requests.cpu).compareTo(quantity('{{ $boost.request }}')) <= 0
      reason: Forbidden
      {{- $bounds := printf "between %s (its own) and %s (the boost)" $reqLo $boost.request }}
      {{- if eq $reqLo $boost.request }}{{ $bounds = printf "%s (its own; only its limit is boosted)" $reqLo }}{{ end }}
      message: "{{ $prefix }}the broker container's CPU request must be {{ $bounds }}"
      messageExpression: >-
        "{{ $prefix }}the broker container's CPU request must be {{ $bounds }}, not "
        + ('cpu' in variables.requests ? string(variables.requests.cpu) : 'none')
    {{- if $boost.limit }}
    - expression: >-
        'cpu' in variables.limits
        && quantity(variables.limits.cpu).compareTo(quantity('{{ $limLo }}')) >= 0
        && quantity(variables.limits.cpu).compareTo(quantity('{{ $boost.limit }}')) <= 0
      reason: Forbidden
      {{- $bounds := printf "between %s (its own) and %s (the boost)" $limLo $boost.limit }}
      {{- if eq $limLo $boost.limit }}{{ $bounds = printf "%s (its own; only its request is boosted)" $limLo }}{{ end }}
      message: "{{ $prefix }}the broker container's CPU limit must be {{ $bounds }}"
      messageExpression: >-
        "{{ $prefix }}the broker container's CPU limit must be {{ $bounds }}, not "
        + ('cpu' in variables.limits ? string(variables.limits.cpu) : 'none')
    {{- else }}
    - expression: "!('cpu' in variables.limits)"
      reason: Forbidden
      message: "{{ $prefix }}the broker container has no CPU limit and gets none"
    {{- end }}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: {{ $name }}
  labels:
    app.kubernetes.io/name: pinot-broker-warmup
    app.kubernetes.io/component: cpu-boost
spec:
  policyName: {{ $name }}
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchLabels:
        kubernetes.io/metadata.name: {{ $ns }}
{{- end -}}
