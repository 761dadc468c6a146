package uai

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"

	"github.com/ulikunitz/xz"
)

// ReadAll returns the contents of path, decompressed when the file starts
// with a gzip, xz or zip signature (a zip archive must hold exactly one file).
func ReadAll(path string) ([]byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	data, err := Decompress(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return data, nil
}

// Decompress returns raw decompressed according to its signature, or raw
// itself when it has none.
func Decompress(raw []byte) ([]byte, error) {
	switch {
	case bytes.HasPrefix(raw, []byte{0x1f, 0x8b}):
		r, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		return readAll("gzip", r)
	case bytes.HasPrefix(raw, []byte{0xfd, '7', 'z', 'X', 'Z', 0}):
		r, err := xz.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("xz: %w", err)
		}
		return readAll("xz", r)
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
		return readAll("zip member "+files[0].Name, r)
	}
	return raw, nil
}

func readAll(what string, r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (truncated or corrupt archive)", what, err)
	}
	return data, nil
}
