package suite

import (
	"bufio"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
)

// ThisMachine describes the computer: GOOS/GOARCH, the CPU model from
// /proc/cpuinfo, the number of CPUs and the total RAM from /proc/meminfo
// (the last two fields empty where /proc is missing).
func ThisMachine() Machine {
	m := Machine{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, NumCPU: runtime.NumCPU()}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), ":")
			k = strings.TrimSpace(k)
			if ok && (k == "model name" || k == "Model" || k == "cpu model") {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
				fs := strings.Fields(v)
				if len(fs) > 0 {
					if kb, err := strconv.ParseInt(fs[0], 10, 64); err == nil {
						m.MemBytes = kb * 1024
					}
				}
				break
			}
		}
		f.Close()
	}
	return m
}

// Commit returns the sdrmap commit: the VCS revision stamped in the binary,
// else `git rev-parse --short HEAD` in the working directory, else in dir
// (e.g. the suite file's folder), else "".
func Commit(dir string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		rev, dirty := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if rev != "" {
			if len(rev) > 7 {
				rev = rev[:7]
			}
			if dirty {
				rev += "-dirty"
			}
			return rev
		}
	}
	for _, d := range []string{"", dir} {
		cmd := exec.Command("git", "rev-parse", "--short", "HEAD")
		cmd.Dir = d
		if out, err := cmd.Output(); err == nil {
			return strings.TrimSpace(string(out))
		}
		if dir == "" {
			break
		}
	}
	return ""
}
