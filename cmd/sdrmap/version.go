package main

import "runtime/debug"

// version returns the module version of the build ("(devel)" for a build
// from a checkout) with its VCS revision when known.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev != "" {
		v += " " + rev[:min(12, len(rev))] + dirty
	}
	return v + " " + bi.GoVersion
}
