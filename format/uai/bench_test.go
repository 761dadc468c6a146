package uai

import (
	"path/filepath"
	"testing"

	"github.com/sdrmap/sdrmap/internal/refdata"
)

// BenchmarkParse measures parsing speed on uncompressed text (MB/s is of
// the decompressed file).
func BenchmarkParse(b *testing.B) {
	dir := refdata.Require(b)
	for _, f := range []string{"gm_label/GeomSurf-7-gm256.uai.xz", "grids/uai2014_Grids_20.uai.xz", "protein_folding/pic2011_pdb1i24.uai.xz"} {
		data, err := ReadAll(filepath.Join(dir, "uai", f))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(filepath.Base(f), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := ParseModel(f, data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
