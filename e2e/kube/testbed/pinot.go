package testbed

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"

	"k8s.io/apimachinery/pkg/version"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/kube/launch"
)

// PinotOptions are the test bed beside a harness cluster whose brokers the chart's pods become.
type PinotOptions struct {
	Dir     string
	Cluster *cluster.Cluster // running; its own broker is stopped by StartPinot
	// Java is the brokers' JVM ("" the machine's); SidecarBin the sidecar's binary ("": built).
	Java, SidecarBin string
	BasePort         int // the pods' host ports (0: Options' default)
	// JMXAgentJar, when set, is laid in the image where Pinot's image keeps the JMX exporter
	// agent (launch.JMXAgentJar), for a broker.jvmOpts that loads it.
	JMXAgentJar string
	Log         *slog.Logger
}

// StartPinot stops the harness's broker (the chart's brokers serve instead), starts the bed with
// the Pinot and sidecar launchers, and readies helm with this tree's warmup-inject.
func StartPinot(ctx context.Context, o PinotOptions) (*Bed, *Helm, error) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if err := o.Cluster.StopBroker(ctx); err != nil {
		return nil, nil, fmt.Errorf("stop the harness's broker: %w", err)
	}
	pinot, err := launch.NewPinot(o.Cluster.LibDir(), filepath.Join(o.Dir, "image"))
	if err != nil {
		return nil, nil, err
	}
	pinot.Java = o.Java
	if o.JMXAgentJar != "" {
		if err := pinot.LayJMXAgent(o.JMXAgentJar); err != nil {
			return nil, nil, err
		}
	}
	side := &launch.Sidecar{Bin: o.SidecarBin}
	if o.SidecarBin == "" {
		if side, err = launch.NewSidecar(ctx, filepath.Join(o.Dir, "sidecar")); err != nil {
			return nil, nil, err
		}
	}
	b, err := Start(ctx, Options{Dir: filepath.Join(o.Dir, "bed"), BasePort: o.BasePort, Log: o.Log,
		Launchers: launch.Registry{launch.PinotImage: pinot, launch.SidecarImage: side}})
	if err != nil {
		return nil, nil, fmt.Errorf("start the test bed: %w", err)
	}
	h, err := NewHelm(ctx, b.Kubeconfig(), o.Dir)
	if err == nil {
		var v *version.Info
		if v, err = b.Admin.Discovery().ServerVersion(); err == nil {
			h.KubeVersion = v.GitVersion
		}
	}
	if err != nil {
		if serr := b.Stop(); serr != nil {
			o.Log.Warn("stopping the test bed", "error", serr)
		}
		return nil, nil, err
	}
	return b, h, nil
}
