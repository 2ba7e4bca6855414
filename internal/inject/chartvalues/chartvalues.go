package chartvalues

// Lookup reads a nested value from coalesced values, e.g. Lookup(v, "warmup", "controllerUrl").
func Lookup(v map[string]any, keys ...string) any {
	var cur any = v
	for _, k := range keys {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[k]
	}
	return cur
}

// Merge returns a copy of base with over laid on top: nested maps merge, anything else is
// replaced. This is Helm's rule for several -f files (pkg/cli/values keeps it unexported).
func Merge(base, over map[string]any) map[string]any {
	out := make(map[string]any, len(base))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		if vm, ok := v.(map[string]any); ok {
			if bm, ok := out[k].(map[string]any); ok {
				out[k] = Merge(bm, vm)
				continue
			}
		}
		out[k] = v
	}
	return out
}
