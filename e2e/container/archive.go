package container

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"time"
)

// Archive is an OCI archive (an OCI image layout in a tar) holding one image index.
type Archive struct {
	Tag         string // org.opencontainers.image.ref.name of the index
	IndexDigest string
	Images      []Image
}

// Image is one platform's image of the index.
type Image struct {
	OS, Architecture string
	ManifestDigest   string
	Created          time.Time
	Config           ImageConfig
	// Uncompressed is the size of its layers' tar streams, unpacked.
	Uncompressed int64
	// Files maps each regular file of its layers to its sha256.
	Files map[string]string
}

// ImageConfig is the runtime part of an OCI image config.
type ImageConfig struct {
	User         string              `json:"User"`
	ExposedPorts map[string]struct{} `json:"ExposedPorts"`
	Entrypoint   []string            `json:"Entrypoint"`
	Cmd          []string            `json:"Cmd"`
	Labels       map[string]string   `json:"Labels"`
}

type descriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Annotations map[string]string `json:"annotations"`
	Platform    *struct {
		OS           string `json:"os"`
		Architecture string `json:"architecture"`
	} `json:"platform"`
}

// ReadArchive reads an OCI archive, checking every blob against its digest.
func ReadArchive(file string) (*Archive, error) {
	blobs, err := readBlobs(file)
	if err != nil {
		return nil, err
	}
	var top struct {
		Manifests []descriptor `json:"manifests"`
	}
	if err := json.Unmarshal(blobs["index.json"], &top); err != nil {
		return nil, fmt.Errorf("%s: index.json: %w", file, err)
	}
	if len(top.Manifests) != 1 || top.Manifests[0].MediaType != "application/vnd.oci.image.index.v1+json" {
		return nil, fmt.Errorf("%s: index.json should name one image index, names %+v", file, top.Manifests)
	}
	a := &Archive{Tag: top.Manifests[0].Annotations["org.opencontainers.image.ref.name"], IndexDigest: top.Manifests[0].Digest}
	var index struct {
		Manifests []descriptor `json:"manifests"`
	}
	if err := blobJSON(blobs, a.IndexDigest, &index); err != nil {
		return nil, err
	}
	for _, m := range index.Manifests {
		if m.Platform == nil {
			return nil, fmt.Errorf("%s: manifest %s has no platform", file, m.Digest)
		}
		img, err := readImage(blobs, m)
		if err != nil {
			return nil, fmt.Errorf("%s: %s/%s: %w", file, m.Platform.OS, m.Platform.Architecture, err)
		}
		a.Images = append(a.Images, img)
	}
	return a, nil
}

// Image returns the image for os/arch, if the index has it.
func (a *Archive) Image(os, arch string) (Image, bool) {
	for _, img := range a.Images {
		if img.OS == os && img.Architecture == arch {
			return img, true
		}
	}
	return Image{}, false
}

func readImage(blobs map[string][]byte, m descriptor) (Image, error) {
	img := Image{OS: m.Platform.OS, Architecture: m.Platform.Architecture, ManifestDigest: m.Digest, Files: map[string]string{}}
	var manifest struct {
		Config descriptor   `json:"config"`
		Layers []descriptor `json:"layers"`
	}
	if err := blobJSON(blobs, m.Digest, &manifest); err != nil {
		return img, err
	}
	var config struct {
		Created      time.Time   `json:"created"`
		OS           string      `json:"os"`
		Architecture string      `json:"architecture"`
		Config       ImageConfig `json:"config"`
	}
	if err := blobJSON(blobs, manifest.Config.Digest, &config); err != nil {
		return img, err
	}
	if config.OS != img.OS || config.Architecture != img.Architecture {
		return img, fmt.Errorf("config says %s/%s", config.OS, config.Architecture)
	}
	img.Config, img.Created = config.Config, config.Created
	for _, l := range manifest.Layers {
		n, err := readLayer(blobs, l, img.Files)
		if err != nil {
			return img, fmt.Errorf("layer %s: %w", l.Digest, err)
		}
		img.Uncompressed += n
	}
	return img, nil
}

// readLayer records the layer's regular files and returns its unpacked size.
func readLayer(blobs map[string][]byte, l descriptor, files map[string]string) (int64, error) {
	b, ok := blobs[l.Digest]
	if !ok {
		return 0, errors.New("missing from the archive")
	}
	var r io.Reader = bytes.NewReader(b)
	switch l.MediaType {
	case "application/vnd.oci.image.layer.v1.tar+gzip":
		z, err := gzip.NewReader(r)
		if err != nil {
			return 0, err
		}
		r = z
	case "application/vnd.oci.image.layer.v1.tar":
	default:
		return 0, fmt.Errorf("media type %q: expected an OCI tar or tar+gzip layer", l.MediaType)
	}
	counted := &countingReader{r: r}
	tr := tar.NewReader(counted)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		sum := sha256.New()
		if _, err := io.Copy(sum, tr); err != nil {
			return 0, err
		}
		files["/"+path.Clean(h.Name)] = hex.EncodeToString(sum.Sum(nil))
	}
	// The tar stream's end-of-archive padding counts too.
	if _, err := io.Copy(io.Discard, counted); err != nil {
		return 0, err
	}
	return counted.n, nil
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func blobJSON(blobs map[string][]byte, digest string, v any) error {
	b, ok := blobs[digest]
	if !ok {
		return fmt.Errorf("blob %s is missing from the archive", digest)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("blob %s: %w", digest, err)
	}
	return nil
}

// readBlobs returns index.json and every blob by its digest, each checked against its digest.
func readBlobs(file string) (map[string][]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("opening the image archive: %w", err)
	}
	defer f.Close()
	blobs := map[string][]byte{}
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		name := path.Clean(h.Name)
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", file, name, err)
		}
		if name == "index.json" {
			blobs[name] = b
			continue
		}
		hexsum, ok := strings.CutPrefix(name, "blobs/sha256/")
		if !ok {
			continue
		}
		if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != hexsum {
			return nil, fmt.Errorf("%s: blob %s does not match its digest", file, name)
		}
		blobs["sha256:"+hexsum] = b
	}
	if blobs["index.json"] == nil {
		return nil, fmt.Errorf("%s: no index.json: not an OCI archive", file)
	}
	return blobs, nil
}
