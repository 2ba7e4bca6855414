// Package report says what the sidecar's runs did: the /status document
// (StatusBoard), the run metrics (Metrics), and the observers that feed them
// and the log from the run's events (event.Event: Recorder, NewLogObserver).
// It keeps no lifetime of its own: the supervisor starts each run and records
// its end here.
package report
