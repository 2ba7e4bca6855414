package find

// The few fields the rooms read from manifests, decoded from the same node tree they edit.
// Everything else is left as nodes and never interpreted.

type objectMeta struct {
	Name      string            `yaml:"name"`
	Namespace string            `yaml:"namespace"`
	Labels    map[string]string `yaml:"labels"`
}

// Object is what every manifest says of itself: its kind and name.
type Object struct {
	APIVersion string     `yaml:"apiVersion"`
	Kind       string     `yaml:"kind"`
	Metadata   objectMeta `yaml:"metadata"`
}

type statefulSet struct {
	Metadata objectMeta `yaml:"metadata"`
	Spec     struct {
		// Replicas is nil when unset (the API server's default: 1).
		Replicas *int `yaml:"replicas"`
		Template struct {
			Metadata objectMeta `yaml:"metadata"`
			Spec     podSpec    `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type podSpec struct {
	Containers         []container `yaml:"containers"`
	InitContainers     []container `yaml:"initContainers"`
	Volumes            []volume    `yaml:"volumes"`
	ServiceAccountName string      `yaml:"serviceAccountName"`
}

type container struct {
	Name           string        `yaml:"name"`
	Image          string        `yaml:"image"`
	Args           []string      `yaml:"args"`
	Command        []string      `yaml:"command"`
	Ports          []port        `yaml:"ports"`
	VolumeMounts   []volumeMount `yaml:"volumeMounts"`
	ReadinessProbe *probe        `yaml:"readinessProbe"`
	LivenessProbe  *probe        `yaml:"livenessProbe"`
	StartupProbe   *probe        `yaml:"startupProbe"`
	Env            []envVar      `yaml:"env"`
	Resources      Resources     `yaml:"resources"`
}

// envVar is a literal env entry (valueFrom entries read as an empty value).
type envVar struct {
	Name  string `yaml:"name"`
	Value string `yaml:"value"`
}

// Resources are a container's requests and limits as written (quantities as strings).
type Resources struct {
	Requests map[string]string `yaml:"requests"`
	Limits   map[string]string `yaml:"limits"`
}

type port struct {
	Name          string `yaml:"name"`
	ContainerPort int    `yaml:"containerPort"`
}

type probe struct {
	HTTPGet *struct {
		// An int or a port name, as Kubernetes allows.
		Port any `yaml:"port"`
	} `yaml:"httpGet"`
}

type volumeMount struct {
	Name      string `yaml:"name"`
	MountPath string `yaml:"mountPath"`
	SubPath   string `yaml:"subPath"`
}

type volume struct {
	Name      string `yaml:"name"`
	ConfigMap *struct {
		Name  string `yaml:"name"`
		Items []struct {
			Key  string `yaml:"key"`
			Path string `yaml:"path"`
		} `yaml:"items"`
	} `yaml:"configMap"`
}

type service struct {
	Metadata objectMeta `yaml:"metadata"`
	Spec     struct {
		Type      string            `yaml:"type"`
		ClusterIP string            `yaml:"clusterIP"`
		Selector  map[string]string `yaml:"selector"`
		Ports     []struct {
			Name string `yaml:"name"`
			Port int    `yaml:"port"`
		} `yaml:"ports"`
	} `yaml:"spec"`
}
