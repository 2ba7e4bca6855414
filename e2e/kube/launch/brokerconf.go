package launch

import (
	"fmt"
	"strconv"
	"strings"
)

// brokerHostnameKey pins the host the broker registers under. The chart sets
// pinot.set.instance.id.to.hostname=true, and every pod here shares the machine's hostname: the
// instance ids would collide. With 127.0.0.1 and the pod's own host port for the query port the id,
// Broker_127.0.0.1_<host port>, is unique and stable per pod name, as a pod's hostname is.
const brokerHostnameKey = "pinot.broker.hostname"

// translateBrokerConf rewrites a broker's pinot-broker.conf (Java properties, as Pinot reads it)
// for the pod network: every key ending in "port" (case-insensitive: queryPort, runner.port, a
// listener's .port) gets the pod's host port for its value, declared on the way, and
// pinot.broker.hostname is set to 127.0.0.1 (any line of its own dropped: a repeated key would
// become a list). Comments, other keys and continuation lines are kept as they are.
func translateBrokerConf(conf string, net PortMap) (string, error) {
	lines := strings.Split(conf, "\n")
	out := make([]string, 0, len(lines)+1)
	continued := false // the previous line ended in an odd number of backslashes
	for i, line := range lines {
		wasContinued := continued
		continued = oddBackslashes(strings.TrimRight(line, "\r"))
		key, value, ok := property(line)
		if wasContinued || !ok {
			out = append(out, line)
			continue
		}
		switch {
		case key == brokerHostnameKey:
			continue
		case strings.HasSuffix(strings.ToLower(key), "port"):
			n, err := strconv.Atoi(value)
			if err != nil || n < 1 || n > 65535 {
				return "", fmt.Errorf("line %d: %s=%q: want a port number (1–65535) to translate to the pod's host port", i+1, key, value)
			}
			hp, err := net.HostPort(int32(n))
			if err != nil {
				return "", fmt.Errorf("line %d: %s: %w", i+1, key, err)
			}
			line = key + "=" + strconv.Itoa(hp)
		}
		out = append(out, line)
	}
	for len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
		out = out[:len(out)-1]
	}
	out = append(out, brokerHostnameKey+"=127.0.0.1")
	return strings.Join(out, "\n") + "\n", nil
}

// property splits a properties line into key and value (separated by '=', ':' or white space,
// as java.util.Properties reads them); ok is false for a blank or comment line.
func property(line string) (key, value string, ok bool) {
	s := strings.TrimLeft(strings.TrimRight(line, "\r"), " \t\f")
	if s == "" || s[0] == '#' || s[0] == '!' {
		return "", "", false
	}
	end := strings.IndexAny(s, "=: \t\f")
	if end < 0 {
		return s, "", true
	}
	key, rest := s[:end], strings.TrimLeft(s[end:], " \t\f")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = strings.TrimLeft(rest[1:], " \t\f")
	}
	return key, strings.TrimSpace(rest), true
}

// oddBackslashes says whether s ends in an odd number of backslashes: a continued line.
func oddBackslashes(s string) bool {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}
