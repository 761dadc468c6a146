// Package suite runs the experiments of `sdrmap bench`: it reads a suite
// file (the instances), runs every requested solver on every instance,
// records one JSON line per (instance, solver) and renders the records as
// the paper's tables (Markdown) and plots (PNG).
//
// # Suite files
//
// Plain text, one instance per line; '#' starts a comment, blank lines are
// ignored:
//
//	file PATH [--evid EVID] [category NAME] [name NAME]
//	gen KIND [flags of `sdrmap gen KIND`] [category NAME] [name NAME]
//
// PATH and EVID are relative to the suite file's directory unless absolute;
// PATH may be a glob (filepath.Match syntax), which must match at least one
// file and then cannot take --evid or name. A file's category defaults to
// the name of its folder, its name to the file name without the .uai and
// compression suffixes. A generated instance uses package gen with the
// defaults and checks of `sdrmap gen` (--seed included; -o and --planted
// are not accepted); its category defaults to the kind, its name to the
// kind followed by the flags given, e.g. potts-rows10-cols10-labels4-seed1.
// Instance names must be unique within a suite.
package suite

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sdrmap/sdrmap/format/uai"
	"github.com/sdrmap/sdrmap/model"
)

// Entry is one instance of a suite.
type Entry struct {
	Name     string // unique within the suite
	Category string
	Path     string   // file instances: the UAI model file (resolved)
	Evid     string   // file instances: the evidence file, "" for none
	Gen      *GenSpec // generated instances
	Pos      string   // FILE:LINE of the suite line
}

// Source describes where the instance comes from: the model file, or the
// gen command line.
func (e *Entry) Source() string {
	if e.Gen != nil {
		return e.Gen.String()
	}
	if e.Evid != "" {
		return e.Path + " --evid " + e.Evid
	}
	return e.Path
}

// Load reads or generates the model and its evidence.
func (e *Entry) Load() (*model.Model, model.Evidence, error) {
	if e.Gen != nil {
		return e.Gen.Build(), nil, nil
	}
	m, err := uai.ReadModelFile(e.Path)
	if err != nil {
		return nil, nil, err
	}
	if e.Evid == "" {
		return m, nil, nil
	}
	ev, err := uai.ReadEvidenceFile(e.Evid)
	if err != nil {
		return nil, nil, err
	}
	if _, err := ev.Clamps(m); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", e.Evid, err)
	}
	return m, ev, nil
}

// ParseFile reads the suite file path.
func ParseFile(path string) ([]Entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f, path, filepath.Dir(path))
}

// Parse reads a suite from r; name is used in error messages (name:line:
// message) and dir resolves relative paths. Every file named must exist.
func Parse(r io.Reader, name, dir string) ([]Entry, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var out []Entry
	seen := map[string]string{}
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		fields := strings.Fields(text)
		if len(fields) == 0 {
			continue
		}
		pos := fmt.Sprintf("%s:%d", name, line)
		entries, err := parseLine(fields, dir)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", pos, err)
		}
		for _, e := range entries {
			e.Pos = pos
			if prev, ok := seen[e.Name]; ok {
				return nil, fmt.Errorf("%s: instance name %q already used at %s (add 'name NAME')", pos, e.Name, prev)
			}
			seen[e.Name] = pos
			out = append(out, e)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no instances", name)
	}
	return out, nil
}

// takeKeywords removes the "category NAME" and "name NAME" pairs from
// fields.
func takeKeywords(fields []string) (rest []string, category, name string, err error) {
	for i := 0; i < len(fields); i++ {
		switch fields[i] {
		case "category", "name":
			if i+1 >= len(fields) {
				return nil, "", "", fmt.Errorf("%q needs a value", fields[i])
			}
			if fields[i] == "category" {
				category = fields[i+1]
			} else {
				name = fields[i+1]
			}
			i++
		default:
			rest = append(rest, fields[i])
		}
	}
	return rest, category, name, nil
}

func parseLine(fields []string, dir string) ([]Entry, error) {
	rest, category, name, err := takeKeywords(fields[1:])
	if err != nil {
		return nil, err
	}
	switch fields[0] {
	case "gen":
		if len(rest) == 0 {
			return nil, fmt.Errorf("gen needs a kind: %s", strings.Join(GenKinds, ", "))
		}
		g, err := ParseGen(rest[0], rest[1:])
		if err != nil {
			return nil, err
		}
		e := Entry{Name: name, Category: category, Gen: g}
		if e.Name == "" {
			e.Name = g.Name()
		}
		if e.Category == "" {
			e.Category = g.Kind
		}
		return []Entry{e}, nil
	case "file":
		return parseFileLine(rest, category, name, dir)
	default:
		return nil, fmt.Errorf("unknown entry %q (want 'file PATH ...' or 'gen KIND ...')", fields[0])
	}
}

func parseFileLine(args []string, category, name, dir string) ([]Entry, error) {
	var path, evid string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--evid":
			if i+1 >= len(args) {
				return nil, fmt.Errorf("--evid needs a file")
			}
			evid = args[i+1]
			i++
		case strings.HasPrefix(a, "--evid="):
			if evid = strings.TrimPrefix(a, "--evid="); evid == "" {
				return nil, fmt.Errorf("--evid needs a file")
			}
		case strings.HasPrefix(a, "-"):
			return nil, fmt.Errorf("unknown option %q for file (want --evid, category or name)", a)
		case path != "":
			return nil, fmt.Errorf("unexpected %q: one PATH per file line (use a glob for several)", a)
		default:
			path = a
		}
	}
	if path == "" {
		return nil, fmt.Errorf("file needs a PATH")
	}
	resolve := func(p string) string {
		if filepath.IsAbs(p) {
			return filepath.Clean(p)
		}
		return filepath.Join(dir, p)
	}
	path = resolve(path)
	var paths []string
	if strings.ContainsAny(path, "*?[") {
		m, err := filepath.Glob(path)
		if err != nil {
			return nil, fmt.Errorf("glob %s: %w", path, err)
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("glob %s matches no file", path)
		}
		if evid != "" || name != "" {
			return nil, fmt.Errorf("a glob cannot take --evid or name")
		}
		paths = m
	} else {
		if _, err := os.Stat(path); err != nil {
			return nil, err
		}
		paths = []string{path}
	}
	if evid != "" {
		evid = resolve(evid)
		if _, err := os.Stat(evid); err != nil {
			return nil, err
		}
	}
	var out []Entry
	for _, p := range paths {
		e := Entry{Name: name, Category: category, Path: p, Evid: evid}
		if e.Name == "" {
			e.Name = baseName(p)
		}
		if e.Category == "" {
			e.Category = filepath.Base(filepath.Dir(p))
		}
		out = append(out, e)
	}
	return out, nil
}

// baseName is the file name without .uai and compression suffixes.
func baseName(p string) string {
	b := filepath.Base(p)
	for _, s := range []string{".gz", ".xz", ".zip"} {
		b = strings.TrimSuffix(b, s)
	}
	return strings.TrimSuffix(b, ".uai")
}
