package haproxy

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// command sends one runtime API command over the admin socket and returns its answer.
func (lb *LB) command(cmd string) (string, error) {
	c, err := net.DialTimeout("unix", lb.socket, 2*time.Second)
	if err != nil {
		return "", fmt.Errorf("haproxy runtime API %q: %w", cmd, err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := fmt.Fprintf(c, "%s\n", cmd); err != nil {
		return "", fmt.Errorf("haproxy runtime API %q: %w", cmd, err)
	}
	var b strings.Builder
	sc := bufio.NewScanner(c)
	for sc.Scan() {
		b.WriteString(sc.Text())
		b.WriteByte('\n')
	}
	return strings.TrimSpace(b.String()), nil
}

// setState puts a server in an administrative state; HAProxy answers nothing on success.
func (lb *LB) setState(server, state string) error {
	out, err := lb.command(fmt.Sprintf("set server %s/%s state %s", BackendName, server, state))
	if err != nil {
		return err
	}
	if out != "" {
		return fmt.Errorf("haproxy: set server %s state %s: %s", server, state, out)
	}
	return nil
}

// SetReady enters a server into service (an endpoint turning ready). With SlowStart, its weight
// then ramps up from 0.
func (lb *LB) SetReady(server string) error { return lb.setState(server, "ready") }

// SetMaint removes a server from service (an endpoint removed): no new request goes to it; those
// already sent to it finish.
func (lb *LB) SetMaint(server string) error { return lb.setState(server, "maint") }

// SetAddr points a server at ip:port (an endpoint taking a pre-declared server slot). Set it while
// the server is in maintenance: a slow start begins when SetReady enters the server, not when its
// address changes. HAProxy applies the address to new server connections only: a client's
// keep-alive connection whose last request went to this server keeps its server connection to
// the old address and sends its next request there when the balancer picks this server again
// (nothing in the runtime API closes it), so a server should keep one endpoint for good.
func (lb *LB) SetAddr(server, ip string, port int) error {
	if net.ParseIP(ip) == nil {
		return fmt.Errorf("haproxy: set server %s addr %q: want an IP address", server, ip)
	}
	// HAProxy takes any number and keeps it modulo 65536: 99999 would become 34463.
	if port < 1 || port > 65535 {
		return fmt.Errorf("haproxy: set server %s port %d: want 1–65535", server, port)
	}
	out, err := lb.command(fmt.Sprintf("set server %s/%s addr %s port %d", BackendName, server, ip, port))
	if err != nil {
		return err
	}
	return setAddrAnswer(server, out)
}

// setAddrAnswer judges HAProxy's answer to "set server addr": on success it says what changed
// ("IP changed from 'a' to 'b', port changed from '1' to '2' by 'stats socket command'") or
// that nothing needed to; anything else ("No such server.", "Invalid addr ...") is a refusal.
func setAddrAnswer(server, out string) error {
	if strings.HasPrefix(out, "IP changed from ") || strings.HasPrefix(out, "no need to change the addr") {
		return nil
	}
	return fmt.Errorf("haproxy: set server %s addr: %s", server, out)
}

// Server is one server's line of "show stat".
type Server struct {
	Name   string
	Status string // UP, MAINT, "no check"...
	Weight int    // effective weight: below FullWeight while a slow start ramps it
	Addr   string // ip:port it sends to (show stat's addr column)
}

// Servers reads "show stat" for the backend's servers.
func (lb *LB) Servers() ([]Server, error) {
	out, err := lb.command("show stat")
	if err != nil {
		return nil, err
	}
	r := csv.NewReader(strings.NewReader(strings.TrimPrefix(out, "# ")))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil || len(rows) == 0 {
		return nil, fmt.Errorf("haproxy: show stat: unreadable answer (%v): %.200q", err, out)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, h := range []string{"pxname", "svname", "status", "weight"} {
		if _, ok := col[h]; !ok {
			return nil, fmt.Errorf("haproxy: show stat: no %s column", h)
		}
	}
	var servers []Server
	for _, row := range rows[1:] {
		if len(row) <= col["weight"] || row[col["pxname"]] != BackendName || row[col["svname"]] == "BACKEND" {
			continue
		}
		w, _ := strconv.Atoi(row[col["weight"]])
		s := Server{Name: row[col["svname"]], Status: row[col["status"]], Weight: w}
		if i, ok := col["addr"]; ok && i < len(row) {
			s.Addr = row[i]
		}
		servers = append(servers, s)
	}
	return servers, nil
}
