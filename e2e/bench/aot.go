package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/cluster"
	"github.com/warmup-sidecar/warmup-sidecar/e2e/coldstart"
)

// An AOT arm's broker starts from a JDK AOT cache (JEP 483/514/515, JDK 25+) made by one
// training run of the same JDK and classpath: a broker started with -XX:AOTCacheOutput, the
// workload, then a clean shutdown, at which the JVM (a child JVM it forks) writes the cache.
// Every restart of the arm then runs with -XX:AOTCache and its own -Xlog:aot file, which says
// whether the JVM used the cache: a rejected cache is recorded as rejected, never as used.

// aotLogSelection is what the broker JVM logs of its cache: the aot and cds tags at info.
const aotLogSelection = "-Xlog:aot=info,cds=info:file="

// aotExitGrace bounds the training broker's exit after SIGTERM: the broker's own shutdown
// delay (10 s) plus the cache dump, which on 2 cores takes a while for Pinot's classpath.
const aotExitGrace = 5 * time.Minute

func (e *Env) aotCache(arm string) string { return filepath.Join(e.work, "aot", arm+".aot") }

// aotRunOpts are the options of a restart of arm that reads its cache, logging to logPath.
func (e *Env) aotRunOpts(arm, logPath string) []string {
	return []string{"-XX:AOTCache=" + e.aotCache(arm), aotLogSelection + logPath + ":uptime,level,tags"}
}

// aotWorkload says what trains arm's cache.
func aotWorkload(arm string, load time.Duration, rate float64) string {
	if coldstart.ArmBase(arm) == coldstart.ArmOnAOTLoad {
		return fmt.Sprintf("the sidecar's default probes, then the study's load (%.0f QPS for %s)", rate, load)
	}
	return "the sidecar's default probes"
}

// TrainAOT makes arm's AOT cache: a broker on the arm's JDK started with -XX:AOTCacheOutput,
// the sidecar's defaults warming it (on_aot_load: then the study's load for the length of a
// restart's load), then SIGTERM and a wait for the JVM to write the cache and exit.
func (e *Env) TrainAOT(ctx context.Context, arm string, rate float64) (*coldstart.AOTTraining, error) {
	cfg := e.cfg
	cache := e.aotCache(arm)
	if err := os.MkdirAll(filepath.Dir(cache), 0o755); err != nil {
		return nil, fmt.Errorf("AOT training %s: %w", arm, err)
	}
	if err := os.Remove(cache); err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("AOT training %s: removing the old cache: %w", arm, err)
	}
	if err := e.Cluster.KillBroker(); err != nil {
		return nil, fmt.Errorf("AOT training %s: kill broker: %w", arm, err)
	}
	tag := "aot-train-" + arm
	// %p: the training JVM and the child JVM that assembles the cache log to their own files.
	logPattern := filepath.Join(e.work, "logs", tag+"-%p.log")
	t := &coldstart.AOTTraining{JDK: JDKOf(ctx, e.brokerJava(arm)), Workload: aotWorkload(arm, cfg.WarmEnd, rate), Cache: cache}
	listen, err := e.sidecarListen()
	if err != nil {
		return nil, err
	}
	sc, err := startSidecar(e.sidecar, listen, filepath.Join(e.work, "logs", "sidecar-"+tag+".log"), e.sidecarEnv(arm))
	if err != nil {
		return nil, err
	}
	defer sc.stop()
	opts := append(e.brokerOpts(arm, tag), "-XX:AOTCacheOutput="+cache, aotLogSelection+logPattern+":uptime,level,tags")
	cfg.Logger.Info("AOT training run", "arm", arm, "java", t.JDK.Java, "cache", cache, "workload", t.Workload)
	if err := e.Cluster.StartBroker(ctx, cluster.WithBrokerJVMOpts(opts...), cluster.WithBrokerJava(e.brokerJava(arm)),
		cluster.WithBrokerNice(cfg.BrokerNice)); err != nil {
		return nil, fmt.Errorf("AOT training %s: start broker: %w", arm, err)
	}
	started := time.Now()
	if _, err := e.waitReady(ctx, sc.url+"/readyz", sc); err != nil {
		return nil, fmt.Errorf("AOT training %s: %w (broker log %s)", arm, err, e.Cluster.LogPath("broker"))
	}
	if coldstart.ArmBase(arm) == coldstart.ArmOnAOTLoad {
		bc := coldstart.NewBrokerClient(e.Cluster.BrokerURL(), nil)
		_, err := coldstart.RunLoad(ctx, coldstart.LoadConfig{Rate: rate, Duration: cfg.WarmEnd, Timeout: cfg.Timeout}, cfg.Mix, bc.Send)
		bc.Close()
		if err != nil {
			return nil, fmt.Errorf("AOT training %s: load: %w", arm, err)
		}
	}
	stopAt := time.Now()
	if err := e.Cluster.Broker(0).Terminate(ctx, aotExitGrace); err != nil {
		return nil, fmt.Errorf("AOT training %s: %w", arm, err)
	}
	t.ExitSeconds = time.Since(stopAt).Seconds()
	t.Seconds = time.Since(started).Seconds()
	t.Evidence = aotTrainingEvidence(strings.Replace(logPattern, "%p", "*", 1), e.Cluster.LogPath("broker"))
	fi, err := os.Stat(cache)
	if err != nil || fi.Size() == 0 {
		return t, fmt.Errorf("AOT training %s: the JVM wrote no cache %s after %.0f s (exit after SIGTERM %.0f s; a JVM killed at the grace limit "+
			"writes none); its log: %s", arm, cache, t.Seconds, t.ExitSeconds, strings.Join(t.Evidence, " | "))
	}
	t.CacheBytes = fi.Size()
	cfg.Logger.Info("AOT cache written", "arm", arm, "bytes", t.CacheBytes, "seconds", fmt.Sprintf("%.0f", t.Seconds))
	return t, nil
}

// aotTrainingEvidence is what the training JVMs said of the cache: their -Xlog files' lines
// about it, warnings and errors, and the lines the JVM prints to stdout (the broker's role log,
// from its last start) when it forks the child that assembles the cache and when that is done.
func aotTrainingEvidence(glob, roleLog string) []string {
	files, _ := filepath.Glob(glob)
	var texts []string
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil {
			texts = append(texts, string(b))
		}
	}
	if b, err := os.ReadFile(roleLog); err == nil {
		log := string(b)
		if i := strings.LastIndex(log, "\n=== "); i >= 0 {
			log = log[i:]
		}
		texts = append(texts, log)
	}
	var out []string
	for _, text := range texts {
		for _, l := range strings.Split(text, "\n") {
			low := strings.ToLower(l)
			if strings.Contains(low, "aot cache") || strings.Contains(low, "aotcache") || strings.Contains(low, "aotconfiguration") ||
				strings.Contains(low, "[error") || strings.Contains(low, "[warning") {
				out = append(out, strings.TrimSpace(l))
				if len(out) == 10 {
					return out
				}
			}
		}
	}
	return out
}

// readAOTUse classifies one restart's AOT log (a missing file is no evidence, not a used cache).
func readAOTUse(path string) *coldstart.AOTCacheUse {
	b, err := os.ReadFile(path)
	u := coldstart.ClassifyAOTLog(string(b))
	if err != nil {
		u.Evidence = append(u.Evidence, "reading the JVM's AOT log: "+err.Error())
	}
	u.Log = path
	return &u
}
