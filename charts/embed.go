// Package charts embeds the Helm chart so warmup-inject renders the very templates
// `helm install` renders: one source of truth for the sidecar container. It lives here because
// go:embed cannot reach parent directories.
package charts

import "embed"

// PinotBrokerWarmup holds the chart directory pinot-broker-warmup, dotfiles included.
//
//go:embed all:pinot-broker-warmup
var PinotBrokerWarmup embed.FS

// PinotBrokerWarmupDir is the root of the chart inside PinotBrokerWarmup.
const PinotBrokerWarmupDir = "pinot-broker-warmup"
