package uai

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"

	"github.com/ulikunitz/xz"

	"github.com/sdrmap/sdrmap/model"
)

// ReadAll returns the contents of path, decompressed when the file starts
// with a gzip, xz or zip signature (a zip archive must hold exactly one
// file), within the default limits' MaxBytes (model.DefaultLimits).
func ReadAll(path string) ([]byte, error) {
	return ReadAllLimit(path, model.DefaultLimits().MaxBytes())
}

// ReadAllLimit is ReadAll for files of at most maxBytes, before and after
// decompression: a larger file or archive member is an error, found before
// reading more than maxBytes.
func ReadAllLimit(path string, maxBytes int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := readLimit(f, maxBytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	data, err := DecompressLimit(raw, maxBytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return data, nil
}

// Decompress returns raw decompressed according to its signature, or raw
// itself when it has none, within the default limits' MaxBytes.
func Decompress(raw []byte) ([]byte, error) {
	return DecompressLimit(raw, model.DefaultLimits().MaxBytes())
}

// DecompressLimit is Decompress with the decompressed size bounded by
// maxBytes: a larger one (a decompression bomb) is an error.
func DecompressLimit(raw []byte, maxBytes int64) ([]byte, error) {
	switch {
	case bytes.HasPrefix(raw, []byte{0x1f, 0x8b}):
		r, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		return readAll("gzip", r, maxBytes)
	case bytes.HasPrefix(raw, []byte{0xfd, '7', 'z', 'X', 'Z', 0}):
		r, err := xz.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("xz: %w", err)
		}
		return readAll("xz", r, maxBytes)
	case bytes.HasPrefix(raw, []byte("PK\x03\x04")):
		z, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
		if err != nil {
			return nil, fmt.Errorf("zip: %w", err)
		}
		var files []*zip.File
		for _, f := range z.File {
			if !f.FileInfo().IsDir() {
				files = append(files, f)
			}
		}
		if len(files) != 1 {
			return nil, fmt.Errorf("zip archive holds %d files, expected exactly one", len(files))
		}
		r, err := files[0].Open()
		if err != nil {
			return nil, fmt.Errorf("zip member %s: %w", files[0].Name, err)
		}
		defer r.Close()
		return readAll("zip member "+files[0].Name, r, maxBytes)
	}
	return raw, nil
}

func readAll(what string, r io.Reader, maxBytes int64) ([]byte, error) {
	data, err := readLimit(r, maxBytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return data, nil
}

// readLimit reads r to its end, failing beyond maxBytes.
func readLimit(r io.Reader, maxBytes int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w (truncated or corrupt file)", err)
	}
	if int64(len(data)) > maxBytes {
		return nil, fmt.Errorf("more than %d bytes (decompressed), the limit for this model size (--max-entries raises it)", maxBytes)
	}
	return data, nil
}
