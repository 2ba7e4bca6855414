package cluster

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/warmup-sidecar/warmup-sidecar/e2e/proc"
)

// Kafka for the REALTIME leg of TableHybrid: one Apache Kafka JVM in KRaft mode (broker and
// controller in one process, no ZooKeeper of its own) on loopback, from the jars
// scripts/install-pinot.sh kafka caches.

// KafkaTopic is the topic TableHybrid's REALTIME leg consumes.
const KafkaTopic = TableHybrid

func (c *Cluster) kafkaAddress() string {
	return net.JoinHostPort(loopback, strconv.Itoa(c.ports.Kafka))
}

func (c *Cluster) kafkaProperties(dataDir string) string {
	return strings.Join([]string{
		"process.roles=broker,controller",
		"node.id=1",
		fmt.Sprintf("controller.quorum.voters=1@%s:%d", loopback, c.ports.KafkaController),
		fmt.Sprintf("listeners=PLAINTEXT://%s:%d,CONTROLLER://%s:%d", loopback, c.ports.Kafka, loopback, c.ports.KafkaController),
		fmt.Sprintf("advertised.listeners=PLAINTEXT://%s:%d", loopback, c.ports.Kafka),
		"controller.listener.names=CONTROLLER",
		"listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
		"inter.broker.listener.name=PLAINTEXT",
		"log.dirs=" + dataDir,
		// Two partitions: the REALTIME leg then consumes on both servers.
		"num.partitions=2",
		"offsets.topic.replication.factor=1",
		"transaction.state.log.replication.factor=1",
		"transaction.state.log.min.isr=1",
		"group.initial.rebalance.delay.ms=0",
		"auto.create.topics.enable=true",
	}, "\n") + "\n"
}

const kafkaLog4j = `log4j.rootLogger=WARN, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=%d{HH:mm:ss.SSS} %p [%c{1}] %m%n
log4j.logger.kafka.server.KafkaServer=INFO
log4j.logger.kafka.server.BrokerServer=INFO
`

// kafkaClusterID is a random KRaft cluster id: 16 bytes from r, URL-safe base64 without padding.
// One that begins with '-' is drawn again: the storage tool's argument parser reads it as an
// option and fails ("--cluster-id: expected one argument"), one draw in 64; Kafka's own
// random-uuid refuses those ids for the same reason.
func kafkaClusterID(r io.Reader) (string, error) {
	for {
		var b [16]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return "", fmt.Errorf("kafka cluster id: %w", err)
		}
		if id := base64.RawURLEncoding.EncodeToString(b[:]); !strings.HasPrefix(id, "-") {
			return id, nil
		}
	}
}

func (c *Cluster) kafkaJava(heap string, main string, args ...string) []string {
	argv := []string{c.javaBin(), heap, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"-Dlog4j.configuration=file:" + filepath.Join(c.work, "kafka", "log4j.properties"),
		"-cp", filepath.Join(c.kafkaLib, "*"), main}
	return append(argv, args...)
}

// startKafka formats the KRaft storage and starts the broker; it returns once the broker accepts
// connections.
func (c *Cluster) startKafka(ctx context.Context) error {
	if c.kafkaLib == "" {
		lib, err := InstallComponent(ctx, "kafka", c.opts.ProcessOutput)
		if err != nil {
			return err
		}
		c.kafkaLib = lib
	}
	dir := filepath.Join(c.work, "kafka")
	props := filepath.Join(dir, "server.properties")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("start kafka: %w", err)
	}
	if err := os.WriteFile(props, []byte(c.kafkaProperties(filepath.Join(dir, "data"))), 0o644); err != nil {
		return fmt.Errorf("start kafka: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "log4j.properties"), []byte(kafkaLog4j), 0o644); err != nil {
		return fmt.Errorf("start kafka: %w", err)
	}
	id, err := kafkaClusterID(rand.Reader)
	if err != nil {
		return err
	}
	format := c.kafkaJava("-Xmx128m", "kafka.tools.StorageTool", "format", "-t", id, "-c", props)
	if out, err := exec.CommandContext(ctx, format[0], format[1:]...).CombinedOutput(); err != nil {
		return fmt.Errorf("kafka storage format: %w: %s", err, out)
	}
	argv := c.kafkaJava("-Xmx384m", "kafka.Kafka", props)
	p, err := proc.Start(proc.Spec{Name: "kafka", Argv: argv, Dir: dir, Log: c.LogPath("kafka"), Echo: c.opts.ProcessOutput})
	if err != nil {
		return err
	}
	c.kafka = p
	c.log.Info("kafka started", "pid", p.PID(), "bootstrap", c.kafkaAddress())
	return waitFor(ctx, p, "kafka", c.opts.StartTimeout, tcpOpen(c.kafkaAddress()))
}

// produce sends one JSON document per line to topic through Kafka's console producer; each line
// is "key|json", so rows spread over the topic's partitions by key.
func (c *Cluster) produce(ctx context.Context, topic string, rows func(w io.Writer) error) error {
	argv := c.kafkaJava("-Xmx128m", "kafka.tools.ConsoleProducer",
		"--bootstrap-server", c.kafkaAddress(), "--topic", topic,
		"--property", "parse.key=true", "--property", "key.separator=|",
		"--producer-property", "acks=all", "--producer-property", "linger.ms=5")
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("produce to %s: %w", topic, err)
	}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("produce to %s: %w", topic, err)
	}
	werr := rows(in)
	in.Close()
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("produce to %s: console producer: %w: %s", topic, err, out.String())
	}
	if werr != nil {
		return fmt.Errorf("produce to %s: %w", topic, werr)
	}
	return nil
}
