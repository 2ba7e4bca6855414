package config

import (
	"strings"
	"testing"
)

// TestPlainPath: the rule that decides whether a WARMUP_AUTH_HEADER_FILE error
// may show the value.
func TestPlainPath(t *testing.T) {
	for v, want := range map[string]bool{
		"/var/run/secrets/pinot-auth/header":                  true,
		"/var/run/secrets/kubernetes.io/serviceaccount/token": true,
		"/etc/pinot/..2026_11_29_15_00_01.123456789/auth":     true,
		"./auth":                                true,
		"../secrets/auth_header.txt":            true,
		"/tmp/TestAuthHeaderFile4120890684/001": true,
		"auth":                                  false, // relative without ./: a bare word, as a token is
		"secrets/auth":                          false,
		"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln":     false,
		"d2FybXVwOnNlY3JldA==":                          false,
		"/d2FybXVwOnNlY3JldA==":                         false, // '=' is no path character here
		"/Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5": false, // a 32+ run: a token's look
		"/path with space/auth":                         false,
		"/p+q/auth":                                     false,
		"":                                              false,
	} {
		if got := plainPath(v); got != want {
			t.Errorf("plainPath(%q) = %v, want %v", v, got, want)
		}
	}
}

// TestAuthHeaderFileNotAPath: a value that is not plainly a path is named by its
// variable only, with what was expected and why the file could not be read.
func TestAuthHeaderFileNotAPath(t *testing.T) {
	token := "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ3YXJtdXAifQ.c2lnbmF0dXJl"
	_, _, err := LoadFrom([]string{ctl, "WARMUP_AUTH_HEADER_FILE=" + token})
	if err == nil {
		t.Fatal("a token as the path was accepted")
	}
	msg := err.Error()
	for _, want := range []string{"WARMUP_AUTH_HEADER_FILE", "not shown", "no such file or directory", "/var/run/secrets/pinot-auth/header"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	for i := 0; i+4 <= len(token); i++ {
		if strings.Contains(msg, token[i:i+4]) {
			t.Fatalf("error %q carries %q of the token", msg, token[i:i+4])
		}
	}
}
