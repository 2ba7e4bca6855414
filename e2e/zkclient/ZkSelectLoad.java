// ZkSelectLoad sends an open-loop query load the way Apache Pinot's own Java client picks brokers
// (pinot-java-client, run against its real jar), and writes one JSON line per query.
//
// It does what ConnectionFactory.fromZookeeper(properties, zkUrl) builds and Connection.executeAsync
// runs (both read at release-1.5.1):
//   - a DynamicBrokerSelector on the ZooKeeper URL (it watches /EXTERNALVIEW/brokerResource and
//     keeps, per table, the brokers whose state there is ONLINE);
//   - the transport JsonAsyncHttpPinotClientTransportFactory.withConnectionProperties(properties)
//     builds, with brokerReadTimeoutMs set to the client timeout;
//   - per query: Connection.resolveTableName(sql), selector.selectBroker(tables) (a random broker
//     serving all the query's tables, else any broker), transport.executeQueryAsync(broker, sql).
// It records the broker each query went to, which Connection does not expose. An answer carrying
// exceptions counts as an error, as Connection.execute's default failOnExceptions=true throws.
//
// The e2e harness (e2e/zkclient) compiles this file with javac against the Pinot lib dir at run time.
//
// Arguments: --zk <host:port/cluster> --queries <file: JSON array of SQL strings> --qps <rate>
//            --timeout-ms <ms> --records <file> --selections <file>
// Stdout: one line {"ready":true,"brokers":[...]} once the selector has read the external view.
// SIGTERM: no new arrivals; queries in flight finish (each within the timeout); files are flushed.
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedWriter;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeSet;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.apache.pinot.client.BrokerResponse;
import org.apache.pinot.client.Connection;
import org.apache.pinot.client.DynamicBrokerSelector;
import org.apache.pinot.client.JsonAsyncHttpPinotClientTransportFactory;
import org.apache.pinot.client.PinotClientTransport;

public final class ZkSelectLoad {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final DynamicBrokerSelector _selector;
  private final PinotClientTransport<?> _transport;
  private final List<String> _queries;
  private final double _qps;
  private final long _timeoutNs;
  private final BufferedWriter _records;
  private final BufferedWriter _selections;
  // Epoch nanoseconds of _startNano: every timestamp is derived from one monotonic clock.
  private final long _startEpochNs;
  private final long _startNano;
  private final AtomicInteger _inFlight = new AtomicInteger();
  // Connection resolves a query's tables by parsing it each time; the result depends on the text
  // alone, so it is parsed once per distinct query to keep the generator's own CPU low.
  private final Map<String, Optional<String[]>> _tables = new HashMap<>();
  private volatile boolean _stopping;

  private ZkSelectLoad(Map<String, String> args) throws Exception {
    _queries = readQueries(required(args, "--queries"));
    _qps = Double.parseDouble(required(args, "--qps"));
    long timeoutMs = Long.parseLong(required(args, "--timeout-ms"));
    if (_qps <= 0 || timeoutMs <= 0) {
      throw new IllegalArgumentException("--qps and --timeout-ms must be > 0");
    }
    _timeoutNs = timeoutMs * 1_000_000L;
    _records = Files.newBufferedWriter(Paths.get(required(args, "--records")), StandardCharsets.UTF_8);
    _selections = Files.newBufferedWriter(Paths.get(required(args, "--selections")), StandardCharsets.UTF_8);

    Properties properties = new Properties();
    properties.setProperty("brokerReadTimeoutMs", Long.toString(timeoutMs));
    _transport = new JsonAsyncHttpPinotClientTransportFactory().withConnectionProperties(properties).buildTransport();
    _selector = new DynamicBrokerSelector(required(args, "--zk"));
    // Resolve every query's tables before the schedule's start: the first parse loads the SQL
    // parser (seconds on a busy machine), which would otherwise hold the first arrivals back.
    for (String q : _queries) {
      tablesOf(q);
    }

    Instant now = Instant.now();
    _startNano = System.nanoTime();
    _startEpochNs = now.getEpochSecond() * 1_000_000_000L + now.getNano();
  }

  public static void main(String[] argv) throws Exception {
    Map<String, String> args = new HashMap<>();
    for (int i = 0; i + 1 < argv.length; i += 2) {
      args.put(argv[i], argv[i + 1]);
    }
    ZkSelectLoad load = new ZkSelectLoad(args);
    Thread sender = new Thread(load::sendLoop, "zk-select-load");
    Thread watcher = new Thread(load::watchSelection, "zk-select-watch");
    Runtime.getRuntime().addShutdownHook(new Thread(() -> load.shutdown(sender, watcher)));

    ObjectNode ready = JSON.createObjectNode();
    ready.put("ready", true);
    ready.set("brokers", brokersJson(load._selector.getBrokers()));
    System.out.println(JSON.writeValueAsString(ready));
    System.out.flush();

    watcher.start();
    sender.start();
    sender.join();
    watcher.join();
  }

  // sendLoop sends arrival i at start + i/qps; a slow answer never delays the next arrival.
  private void sendLoop() {
    for (long i = 0; !_stopping; i++) {
      long due = _startNano + (long) (i * 1e9 / _qps);
      long wait;
      while (!_stopping && (wait = due - System.nanoTime()) > 0) {
        LockSupport.parkNanos(wait);
      }
      if (_stopping) {
        return;
      }
      send(i, due, _queries.get((int) (i % _queries.size())));
    }
  }

  private String[] tablesOf(String sql) {
    return _tables.computeIfAbsent(sql, q -> Optional.ofNullable(Connection.resolveTableName(q))).orElse(null);
  }

  private void send(long index, long due, String sql) {
    String broker = _selector.selectBroker(tablesOf(sql));
    long sent = System.nanoTime();
    if (broker == null) {
      // Connection.executeAsync throws PinotClientException("Could not find broker ...") here.
      record(index, due, sent, null, 0, "no broker: the selector has no ONLINE broker for the query's tables", false);
      return;
    }
    _inFlight.incrementAndGet();
    try {
      _transport.executeQueryAsync(broker, sql).whenComplete((response, failure) -> {
        long latency = System.nanoTime() - sent;
        finish(index, due, sent, broker, latency, response, failure);
        _inFlight.decrementAndGet();
      });
    } catch (RuntimeException e) {
      _inFlight.decrementAndGet();
      finish(index, due, sent, broker, System.nanoTime() - sent, null, e);
    }
  }

  private void finish(long index, long due, long sent, String broker, long latency, BrokerResponse response,
      Throwable failure) {
    Throwable cause = unwrap(failure);
    // A round trip beyond the timeout is a cancellation even if an answer squeezed in.
    if (cause instanceof TimeoutException || latency >= _timeoutNs) {
      record(index, due, sent, broker, Math.min(latency, _timeoutNs), null, true);
    } else if (cause != null) {
      record(index, due, sent, broker, latency, cause.getClass().getSimpleName() + ": " + cause.getMessage(), false);
    } else if (response.hasExceptions()) {
      record(index, due, sent, broker, latency, "exceptions: " + response.getExceptions(), false);
    } else {
      record(index, due, sent, broker, latency, null, false);
    }
  }

  private static Throwable unwrap(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  private void record(long index, long dueNano, long sentNano, String broker, long latency, String err,
      boolean cancelled) {
    ObjectNode line = JSON.createObjectNode();
    line.put("i", index);
    line.put("due_ns", _startEpochNs + (dueNano - _startNano));
    line.put("sent_ns", _startEpochNs + (sentNano - _startNano));
    if (broker != null) {
      line.put("broker", broker);
    }
    line.put("latency_ns", latency);
    if (err != null) {
      line.put("err", err.length() > 500 ? err.substring(0, 500) : err);
    }
    if (cancelled) {
      line.put("cancelled", true);
    }
    write(_records, line);
  }

  // watchSelection writes the selector's broker list whenever it changes (checked every 20 ms):
  // the instants a broker enters and leaves what this client picks from.
  private void watchSelection() {
    TreeSet<String> last = null;
    while (!_stopping) {
      List<String> brokers = _selector.getBrokers();
      TreeSet<String> now = new TreeSet<>(brokers == null ? List.of() : brokers);
      if (!now.equals(last)) {
        ObjectNode line = JSON.createObjectNode();
        line.put("at_ns", _startEpochNs + (System.nanoTime() - _startNano));
        line.set("brokers", brokersJson(new ArrayList<>(now)));
        write(_selections, line);
        last = now;
      }
      LockSupport.parkNanos(20_000_000L);
    }
  }

  private static synchronized void write(BufferedWriter w, ObjectNode line) {
    try {
      w.write(JSON.writeValueAsString(line));
      w.newLine();
    } catch (IOException e) {
      System.err.println("zk-select-load: write: " + e);
    }
  }

  private void shutdown(Thread sender, Thread watcher) {
    _stopping = true;
    try {
      sender.join(5_000);
      watcher.join(5_000);
      long deadline = System.nanoTime() + _timeoutNs + 2_000_000_000L;
      while (_inFlight.get() > 0 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    synchronized (ZkSelectLoad.class) {
      try {
        _records.close();
        _selections.close();
      } catch (IOException e) {
        System.err.println("zk-select-load: close: " + e);
      }
    }
    try {
      _transport.close();
    } catch (RuntimeException e) {
      System.err.println("zk-select-load: close transport: " + e);
    }
    _selector.close();
  }

  private static ArrayNode brokersJson(List<String> brokers) {
    ArrayNode out = JSON.createArrayNode();
    if (brokers != null) {
      new TreeSet<>(brokers).forEach(out::add);
    }
    return out;
  }

  private static List<String> readQueries(String path) throws IOException {
    List<String> out = new ArrayList<>();
    for (Object q : JSON.readValue(new File(path), List.class)) {
      out.add((String) q);
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException(path + ": no queries");
    }
    return out;
  }

  private static String required(Map<String, String> args, String name) {
    String v = args.get(name);
    if (v == null || v.isEmpty()) {
      throw new IllegalArgumentException("missing " + name);
    }
    return v;
  }
}
