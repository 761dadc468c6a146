package main

/*
#include <stdint.h>
#include <stdlib.h>
*/
import "C"

import (
	"encoding/json"
	"time"
	"unsafe"

	"github.com/sdrmap/sdrmap"
	"github.com/sdrmap/sdrmap/internal/solvecmd"
)

// The C API. Every function that can fail returns an errKind (0: success)
// and, on failure, sets *err to a message the caller frees with
// sdrmap_free. Arrays are read or filled before the call returns; the
// library keeps no pointer to them.

// fail stores err's message in *errOut and returns its kind (def if it has
// none of its own).
func fail(err error, def errKind, errOut **C.char) C.int {
	if err == nil {
		return C.int(kindOK)
	}
	if errOut != nil {
		*errOut = C.CString(err.Error())
	}
	return C.int(classify(err, def))
}

// int64s views n int64_t values at p as a Go slice (nil when n is 0).
func int64s(p *C.int64_t, n C.int64_t) []int64 {
	if n <= 0 || p == nil {
		return nil
	}
	return unsafe.Slice((*int64)(unsafe.Pointer(p)), int(n))
}

func float64s(p *C.double, n C.int64_t) []float64 {
	if n <= 0 || p == nil {
		return nil
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(p)), int(n))
}

// sdrmap_free frees a string the library returned.
//
//export sdrmap_free
func sdrmap_free(s *C.char) { C.free(unsafe.Pointer(s)) }

// sdrmap_version returns a JSON object with the library's version, its
// solvers and the options of sdrmap_solve_start (free it with sdrmap_free).
//
//export sdrmap_version
func sdrmap_version() *C.char {
	b, _ := json.Marshal(map[string]any{"version": version(), "solvers": sdrmap.Solvers(),
		"default_solver": sdrmap.DefaultSolver, "options": optionNames()})
	return C.CString(string(b))
}

// sdrmap_read reads the model at path (any format `sdrmap solve` reads,
// chosen from the path) with the evidence file evid (NULL or "": none) and
// sets *model to its handle.
//
//export sdrmap_read
func sdrmap_read(path, evid *C.char, model *C.int64_t, errOut **C.char) C.int {
	return fail(guard(func() error {
		ev := ""
		if evid != nil {
			ev = C.GoString(evid)
		}
		in, err := solvecmd.Load(C.GoString(path), ev)
		if err != nil {
			return err
		}
		*model = C.int64_t(register(in))
		return nil
	}), kindValue, errOut)
}

// sdrmap_model_new builds a model from flat arrays (newModel): nvars
// cardinalities, nfactors arities, the scopes one after the other (nscope
// entries) and the tables one after the other (ntables entries, last scope
// variable fastest) as energies (form 0) or potentials (form 1).
//
//export sdrmap_model_new
func sdrmap_model_new(nvars C.int64_t, card *C.int64_t, nfactors C.int64_t, arity *C.int64_t,
	nscope C.int64_t, scope *C.int64_t, ntables C.int64_t, tables *C.double, form C.int,
	model *C.int64_t, errOut **C.char) C.int {
	return fail(guard(func() error {
		in, err := newModel(int64s(card, nvars), int64s(arity, nfactors), int64s(scope, nscope), float64s(tables, ntables), int(form))
		if err != nil {
			return err
		}
		*model = C.int64_t(register(in))
		return nil
	}), kindValue, errOut)
}

// sdrmap_model_info sets *info to a JSON object describing a model:
// "sizes" (variables, factors, scope entries, table entries: the lengths of
// sdrmap_model_export's arrays), "energy_convention" and "evidence"
// ([[variable, state], ...]).
//
//export sdrmap_model_info
func sdrmap_model_info(model C.int64_t, info **C.char, errOut **C.char) C.int {
	return fail(guard(func() error {
		in, err := lookup[*solvecmd.Input](int64(model), "model")
		if err != nil {
			return err
		}
		ev := make([][2]int, len(in.Evidence))
		for i, o := range in.Evidence {
			ev[i] = [2]int{o.Var, o.Value}
		}
		b, err := json.Marshal(map[string]any{"sizes": sizes(in.Model), "energy_convention": in.Convention, "evidence": ev})
		if err != nil {
			return err
		}
		*info = C.CString(string(b))
		return nil
	}), kindRuntime, errOut)
}

// sdrmap_model_export fills arrays of the lengths sdrmap_model_info gives
// with the model in sdrmap_model_new's layout, tables as energies (+Inf:
// forbidden).
//
//export sdrmap_model_export
func sdrmap_model_export(model C.int64_t, card, arity, scope *C.int64_t, energies *C.double, errOut **C.char) C.int {
	return fail(guard(func() error {
		in, err := lookup[*solvecmd.Input](int64(model), "model")
		if err != nil {
			return err
		}
		s := sizes(in.Model)
		exportModel(in.Model, int64s(card, C.int64_t(s[0])), int64s(arity, C.int64_t(s[1])),
			int64s(scope, C.int64_t(s[2])), float64s(energies, C.int64_t(s[3])))
		return nil
	}), kindRuntime, errOut)
}

// sdrmap_model_write writes a model to path: OpenGM HDF5 for file.h5 or
// file.h5:group, UAI for file.uai.
//
//export sdrmap_model_write
func sdrmap_model_write(model C.int64_t, path *C.char, errOut **C.char) C.int {
	return fail(guard(func() error {
		in, err := lookup[*solvecmd.Input](int64(model), "model")
		if err != nil {
			return err
		}
		return writeModel(in.Model, C.GoString(path))
	}), kindRuntime, errOut)
}

// sdrmap_energy sets *energy to the energy of the full assignment x (n
// values) in the model's convention.
//
//export sdrmap_energy
func sdrmap_energy(model C.int64_t, x *C.int64_t, n C.int64_t, out *C.double, errOut **C.char) C.int {
	return fail(guard(func() error {
		in, err := lookup[*solvecmd.Input](int64(model), "model")
		if err != nil {
			return err
		}
		e, err := energy(in.Model, int64s(x, n))
		*out = C.double(e)
		return err
	}), kindRuntime, errOut)
}

// sdrmap_solve_start starts solving a model with options, a JSON object
// (see options; NULL or "" for the defaults), and sets *job to the handle
// of the solve.
//
//export sdrmap_solve_start
func sdrmap_solve_start(model C.int64_t, opts *C.char, jobOut *C.int64_t, errOut **C.char) C.int {
	return fail(guard(func() error {
		in, err := lookup[*solvecmd.Input](int64(model), "model")
		if err != nil {
			return err
		}
		text := "{}"
		if opts != nil && C.GoString(opts) != "" {
			text = C.GoString(opts)
		}
		j, err := startSolve(in, text)
		if err != nil {
			return err
		}
		*jobOut = C.int64_t(register(j))
		return nil
	}), kindRuntime, errOut)
}

// sdrmap_job_wait waits up to ms milliseconds for a solve to end and
// returns 1 if it has, 0 if not, -1 for an unknown handle.
//
//export sdrmap_job_wait
func sdrmap_job_wait(jobH C.int64_t, ms C.int64_t) C.int {
	j, err := lookup[*job](int64(jobH), "solve")
	if err != nil {
		return -1
	}
	if j.wait(time.Duration(ms) * time.Millisecond) {
		return 1
	}
	return 0
}

// sdrmap_job_cancel ends a solve like its time limit: it returns soon with
// the best assignment so far (termination "interrupted").
//
//export sdrmap_job_cancel
func sdrmap_job_cancel(jobH C.int64_t) {
	if j, err := lookup[*job](int64(jobH), "solve"); err == nil {
		j.cancel()
	}
}

// sdrmap_job_result waits for a solve to end, sets *summary to its result
// as JSON (job.summary; "variables" is the assignment's length) and copies
// the assignment into x, which holds n values (n may be 0 to ask for the
// summary first). The error of a failed solve is returned as an error.
//
//export sdrmap_job_result
func sdrmap_job_result(jobH C.int64_t, x *C.int64_t, n C.int64_t, summary **C.char, errOut **C.char) C.int {
	return fail(guard(func() error {
		j, err := lookup[*job](int64(jobH), "solve")
		if err != nil {
			return err
		}
		<-j.done
		b, err := j.summary()
		if err != nil {
			return err
		}
		dst := int64s(x, n)
		for i := range min(len(dst), len(j.res.Assignment)) {
			dst[i] = int64(j.res.Assignment[i])
		}
		*summary = C.CString(string(b))
		return nil
	}), kindRuntime, errOut)
}

// sdrmap_release forgets a model or solve handle. A released solve still
// running goes on until it ends; cancel it first to end it soon.
//
//export sdrmap_release
func sdrmap_release(h C.int64_t) { release(int64(h)) }
