package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// do sends one request and fails on any status but 200, quoting the body: the controller explains
// its refusals there.
func (c *Cluster) do(ctx context.Context, method, u, contentType string, body io.Reader) ([]byte, error) {
	return doHTTP(ctx, c.http, method, u, contentType, body)
}

// doHTTP is one request by client; a status other than 200 is an error carrying the body.
func doHTTP(ctx context.Context, client *http.Client, method, u, contentType string, body io.Reader) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: read body: %w", method, u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return data, fmt.Errorf("%s %s: HTTP %d: %s", method, u, resp.StatusCode, strings.TrimSpace(string(data)))
	}
	return data, nil
}

// tagServer replaces a server's Helix tags (controller PUT /instances/{id}/updateTags).
func (c *Cluster) tagServer(ctx context.Context, id, tags string) error {
	u := fmt.Sprintf("%s/instances/%s/updateTags?tags=%s", c.ControllerURL(), url.PathEscape(id), url.QueryEscape(tags))
	if _, err := c.do(ctx, http.MethodPut, u, "", nil); err != nil {
		return fmt.Errorf("tag server %s with %s: %w", id, tags, err)
	}
	return nil
}

// createTable posts the schema and table config committed under e2e/testdata/tables.
func (c *Cluster) createTable(ctx context.Context, table string) error {
	dir := filepath.Join(c.root, "e2e", "testdata", "tables")
	for _, step := range []struct{ file, path string }{
		{table + ".schema.json", "/schemas"},
		{table + ".table.json", "/tables"},
	} {
		body, err := os.ReadFile(filepath.Join(dir, step.file))
		if err != nil {
			return fmt.Errorf("create table %s: %w", table, err)
		}
		if _, err := c.do(ctx, http.MethodPost, c.ControllerURL()+step.path, "application/json", bytes.NewReader(body)); err != nil {
			return fmt.Errorf("create table %s from %s: %w", table, step.file, err)
		}
	}
	return nil
}

// ingestCSV turns one CSV file into one segment on the controller (POST /ingestFromFile) and
// pushes it. The segment name postfix is given explicitly: the controller's default is the
// current millisecond, which two concurrent uploads can share, silently replacing a segment.
func (c *Cluster) ingestCSV(ctx context.Context, table, csvPath string, seq int) error {
	batch, _ := json.Marshal(map[string]string{
		"inputFormat": "csv",
		"segmentNameGenerator.configs.segment.name.postfix": fmt.Sprint(seq),
	})
	u := fmt.Sprintf("%s/ingestFromFile?tableNameWithType=%s_OFFLINE&batchConfigMapStr=%s",
		c.ControllerURL(), url.QueryEscape(table), url.QueryEscape(string(batch)))
	f, err := os.Open(csvPath)
	if err != nil {
		return fmt.Errorf("ingest %s: %w", csvPath, err)
	}
	defer f.Close()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		part, err := mw.CreateFormFile("file", filepath.Base(csvPath))
		if err == nil {
			_, err = io.Copy(part, f)
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	if _, err := c.do(ctx, http.MethodPost, u, mw.FormDataContentType(), pr); err != nil {
		pr.CloseWithError(err)
		return fmt.Errorf("ingest %s into %s: %w", filepath.Base(csvPath), table, err)
	}
	return nil
}

// externalViewOnline reports how many segments of table_OFFLINE are ONLINE on some server and
// how many the external view lists (controller GET /tables/{t}/externalview).
func (c *Cluster) externalViewOnline(ctx context.Context, table string) (online, total int, err error) {
	data, err := c.do(ctx, http.MethodGet, fmt.Sprintf("%s/tables/%s/externalview", c.ControllerURL(), url.PathEscape(table)), "", nil)
	if err != nil {
		return 0, 0, err
	}
	var ev struct {
		Offline map[string]map[string]string `json:"OFFLINE"`
	}
	if err := json.Unmarshal(data, &ev); err != nil {
		return 0, 0, fmt.Errorf("external view of %s: %w", table, err)
	}
	for _, replicas := range ev.Offline {
		total++
		for _, state := range replicas {
			if state == "ONLINE" {
				online++
				break
			}
		}
	}
	return online, total, nil
}

// BrokerInstances lists the cluster's broker instance ids (controller GET /instances).
func (c *Cluster) BrokerInstances(ctx context.Context) ([]string, error) {
	data, err := c.do(ctx, http.MethodGet, c.ControllerURL()+"/instances", "", nil)
	if err != nil {
		return nil, fmt.Errorf("listing instances: %w", err)
	}
	var in struct {
		Instances []string `json:"instances"`
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, fmt.Errorf("decoding controller /instances: %w", err)
	}
	var out []string
	for _, id := range in.Instances {
		if strings.HasPrefix(id, "Broker_") {
			out = append(out, id)
		}
	}
	return out, nil
}
