package batch

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Item is one model of a batch.
type Item struct {
	Input    string // model file (or file.h5:group)
	Evidence string // evidence file, "" if none
	Rel      string // where its outputs go, relative to the output folder
	// SHA-256 of the model file's bytes and of the evidence's (Run sets
	// them; with Rel they identify the input for a resume).
	InputSHA256, EvidenceSHA256 string
}

// compressed are the suffixes of compressed UAI files.
var compressed = []string{".gz", ".xz", ".zip"}

// uaiBase returns name without a compression suffix, and whether the rest
// ends in .uai.
func uaiBase(name string) (string, bool) {
	for _, c := range compressed {
		name = strings.TrimSuffix(name, c)
	}
	return name, strings.HasSuffix(name, ".uai")
}

// isModel reports whether a file found in a directory is a model: .uai,
// .uai.gz, .uai.xz, .uai.zip, toulbar2's .wcsp and .cfn (plain, .gz, .xz),
// and .h5 in a build that reads HDF5.
func isModel(name string) bool {
	if _, ok := uaiBase(name); ok || isToulbar2(name) {
		return true
	}
	return hdf5 && strings.HasSuffix(name, ".h5")
}

// evidenceBeside returns the evidence file of a model found on disk:
// X.uai.evid beside X.uai, X.uai.gz, X.uai.xz or X.uai.zip; "" if absent.
func evidenceBeside(path string) string {
	base, ok := uaiBase(path)
	if !ok {
		return ""
	}
	if st, err := os.Stat(base + ".evid"); err == nil && st.Mode().IsRegular() {
		return base + ".evid"
	}
	return ""
}

// Match expands the command-line inputs into the models of a batch: a model
// file is itself (outputs named after its base name), a directory holds the
// models found in it recursively (outputs under their path relative to it),
// any other file is a manifest: one model per line, optionally followed by
// its evidence file, paths relative to the manifest's folder, '#' comments.
// Models found in directories get the evidence beside them. Two models with
// the same output path (the same REL, or X.uai and X.uai.xz, which both give
// X.uai.MPE) are an error naming both, before anything is solved.
func Match(inputs []string) ([]Item, error) {
	var items []Item
	for _, in := range inputs {
		st, err := os.Stat(modelFile(in))
		switch {
		case err != nil:
			return nil, err
		case st.IsDir():
			err = filepath.WalkDir(in, func(path string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() || !isModel(d.Name()) {
					return err
				}
				rel, err := filepath.Rel(in, path)
				items = append(items, Item{Input: path, Evidence: evidenceBeside(path), Rel: rel})
				return err
			})
		case isModel(filepath.Base(modelFile(in))):
			items = append(items, Item{Input: in, Evidence: evidenceBeside(in), Rel: filepath.Base(in)})
		default:
			var more []Item
			more, err = readManifest(in)
			items = append(items, more...)
		}
		if err != nil {
			return nil, err
		}
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].Rel < items[j].Rel })
	seen := map[string]Item{} // output path: input
	for _, it := range items {
		out := mpePath(it.Rel)
		if prev, ok := seen[out]; ok {
			return nil, clash(prev, it, out)
		}
		seen[out] = it
	}
	return items, nil
}

// clash is Match's error for two inputs a and b that would write the same
// output path out: in one folder (X.uai and X.uai.xz), one must go; with
// the same path under two input folders, a common parent as the input
// keeps the folders in the output paths.
func clash(a, b Item, out string) error {
	msg := fmt.Sprintf("%s and %s would both write %s", a.Input, b.Input, out)
	if filepath.Dir(modelFile(a.Input)) == filepath.Dir(modelFile(b.Input)) {
		return fmt.Errorf("%s: they are in one folder; remove or rename one", msg)
	}
	return fmt.Errorf("%s: they have the same path %s under their input folders; give a folder that holds both as the input (the outputs then keep the folders), or run them with different --out", msg, b.Rel)
}

// modelFile strips an HDF5 group (file.h5:group) from a model argument.
func modelFile(arg string) string {
	if i := strings.LastIndex(arg, ".h5:"); i >= 0 {
		return arg[:i+3]
	}
	return arg
}

func readManifest(path string) ([]Item, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dir := filepath.Dir(path)
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	var items []Item
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		if len(fields) > 2 {
			return nil, fmt.Errorf("%s:%d: want MODEL [EVIDENCE], got %d fields (a model file that is not .uai, .uai.gz, .uai.xz, .uai.zip, .wcsp, .cfn or .h5 is read as a manifest)", path, line, len(fields))
		}
		it := Item{Input: abs(fields[0]), Rel: filepath.Clean(fields[0])}
		if filepath.IsAbs(it.Rel) || strings.HasPrefix(it.Rel, "..") {
			it.Rel = filepath.Base(it.Rel)
		}
		if len(fields) == 2 {
			it.Evidence = abs(fields[1])
		}
		items = append(items, it)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return items, nil
}

// mpePath returns the result file of an item, relative to the output
// folder: its path without the compression suffix, plus .MPE (X.uai.MPE,
// the UAI competitions' name; file.h5:group gives file.h5.group.MPE).
func mpePath(rel string) string {
	base, _ := uaiBase(rel)
	return strings.ReplaceAll(base, ":", ".") + ".MPE"
}
