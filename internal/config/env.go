package config

import (
	"os"
	"reflect"
	"sync"
)

// envMu serialises withEnv: envconfig only reads the process environment.
var envMu sync.Mutex

// withEnv runs f with exactly the WARMUP_* variables of env set in the process
// environment, restoring the previous values afterwards. Load passes os.Environ(),
// so in the binary this changes nothing; tests pass their own maps.
func withEnv(env map[string]string, f func() error) error {
	envMu.Lock()
	defer envMu.Unlock()
	saved := map[string]*string{}
	for _, k := range Known() {
		if v, ok := os.LookupEnv(k); ok {
			saved[k] = &v
		} else {
			saved[k] = nil
		}
		if v, ok := env[k]; ok {
			_ = os.Setenv(k, v)
		} else {
			_ = os.Unsetenv(k)
		}
	}
	defer func() {
		for k, v := range saved {
			if v == nil {
				_ = os.Unsetenv(k)
			} else {
				_ = os.Setenv(k, *v)
			}
		}
	}()
	return f()
}

// fields lists the variable names (the envconfig tags, prefix included) of
// Config's fields.
func fields() []string {
	t := reflect.TypeOf(Config{})
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Tag.Get("ignored") == "true" {
			continue
		}
		out = append(out, f.Tag.Get("envconfig"))
	}
	return out
}
