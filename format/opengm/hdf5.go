//go:build hdf5

package opengm

/*
#cgo pkg-config: hdf5
#include <stdlib.h>
#include <string.h>
#include <hdf5.h>

enum { SD_OTHER, SD_UINT, SD_INT, SD_FLOAT };
enum { SD_U64, SD_I64, SD_F64, SD_F32 };

// sd_quiet stops HDF5 from printing errors and clears the error stack.
static void sd_quiet(void) {
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	H5Eclear2(H5E_DEFAULT);
}

static herr_t sd_walk(unsigned n, const H5E_error2_t *e, void *data) {
	if (n == 0 && e->desc != NULL) {
		strncpy((char *)data, e->desc, 255);
		((char *)data)[255] = 0;
	}
	return 0;
}

// sd_error copies the description of the innermost error of the stack into
// buf (256 bytes) and clears the stack.
static void sd_error(char *buf) {
	buf[0] = 0;
	H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, sd_walk, buf);
	H5Eclear2(H5E_DEFAULT);
}

static hid_t sd_open(const char *name) { return H5Fopen(name, H5F_ACC_RDONLY, H5P_DEFAULT); }
static hid_t sd_create(const char *name) { return H5Fcreate(name, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT); }
static hid_t sd_gopen(hid_t loc, const char *name) { return H5Gopen2(loc, name, H5P_DEFAULT); }
static hid_t sd_dopen(hid_t loc, const char *name) { return H5Dopen2(loc, name, H5P_DEFAULT); }

// sd_kind returns 0 if loc has no link name, 1 for a group, 2 for a
// dataset, 3 for another object, -1 on error. Every component of name but
// the last must exist.
static int sd_kind(hid_t loc, const char *name) {
	htri_t e = H5Lexists(loc, name, H5P_DEFAULT);
	if (e <= 0) return e == 0 ? 0 : -1;
	hid_t o = H5Oopen(loc, name, H5P_DEFAULT);
	if (o < 0) return -1;
	H5I_type_t t = H5Iget_type(o);
	H5Oclose(o);
	return t == H5I_GROUP ? 1 : t == H5I_DATASET ? 2 : 3;
}

static long long sd_nlinks(hid_t g) {
	H5G_info_t info;
	if (H5Gget_info(g, &info) < 0) return -1;
	return (long long)info.nlinks;
}

static ssize_t sd_link_name(hid_t g, hsize_t i, char *buf, size_t n) {
	return H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, buf, n, H5P_DEFAULT);
}

// sd_dinfo describes dataset d: its rank, number of elements and class.
static int sd_dinfo(hid_t d, int *rank, long long *n, int *cls) {
	hid_t s = H5Dget_space(d);
	if (s < 0) return -1;
	int r = H5Sget_simple_extent_ndims(s);
	hssize_t np = H5Sget_simple_extent_npoints(s);
	H5Sclose(s);
	if (r < 0 || np < 0) return -1;
	*rank = r;
	*n = (long long)np;
	hid_t t = H5Dget_type(d);
	if (t < 0) return -1;
	switch (H5Tget_class(t)) {
	case H5T_INTEGER:
		*cls = H5Tget_sign(t) == H5T_SGN_NONE ? SD_UINT : SD_INT;
		break;
	case H5T_FLOAT:
		*cls = SD_FLOAT;
		break;
	default:
		*cls = SD_OTHER;
	}
	H5Tclose(t);
	return 0;
}

// sd_read reads all of d, converted to the native type kind (SD_U64, ...).
static herr_t sd_read(hid_t d, int kind, void *buf) {
	hid_t m = kind == SD_U64 ? H5T_NATIVE_UINT64 : kind == SD_I64 ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE;
	return H5Dread(d, m, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
}

// sd_write creates dataset name under loc, creating missing groups, with
// the dims[0..rank-1] elements of buf of type kind (stored little-endian),
// chunked by chunk elements along the last dimension when chunk > 0 and then
// deflated at level gzip when gzip > 0.
static int sd_write(hid_t loc, const char *name, int kind, const void *buf, int rank, const hsize_t *dims, hsize_t chunk, int gzip) {
	hid_t ft, mt;
	switch (kind) {
	case SD_U64: ft = H5T_STD_U64LE; mt = H5T_NATIVE_UINT64; break;
	case SD_I64: ft = H5T_STD_I64LE; mt = H5T_NATIVE_INT64; break;
	case SD_F64: ft = H5T_IEEE_F64LE; mt = H5T_NATIVE_DOUBLE; break;
	default: ft = H5T_IEEE_F32LE; mt = H5T_NATIVE_FLOAT; break;
	}
	int ret = -1;
	hid_t lcpl = H5Pcreate(H5P_LINK_CREATE), dcpl = H5Pcreate(H5P_DATASET_CREATE), space = -1, d = -1;
	hsize_t cdims[2] = {1, chunk};
	hssize_t n = 0;
	if (lcpl < 0 || dcpl < 0 || H5Pset_create_intermediate_group(lcpl, 1) < 0) goto done;
	if (chunk > 0) {
		if (rank == 1) cdims[0] = chunk;
		if (H5Pset_chunk(dcpl, rank, cdims) < 0) goto done;
		if (gzip > 0 && H5Pset_deflate(dcpl, (unsigned)gzip) < 0) goto done;
	}
	if ((space = H5Screate_simple(rank, dims, NULL)) < 0) goto done;
	if ((d = H5Dcreate2(loc, name, ft, space, lcpl, dcpl, H5P_DEFAULT)) < 0) goto done;
	if ((n = H5Sget_simple_extent_npoints(space)) > 0 && H5Dwrite(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) goto done;
	ret = 0;
done:
	if (d >= 0) H5Dclose(d);
	if (space >= 0) H5Sclose(space);
	if (dcpl >= 0) H5Pclose(dcpl);
	if (lcpl >= 0) H5Pclose(lcpl);
	return ret;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/sdrmap/sdrmap/model"
)

// Enabled reports whether this build can read and write HDF5 files (built
// with the tag hdf5).
const Enabled = true

// hdf5Mu serializes all calls into the HDF5 library, which may be built
// without thread safety; the OS thread is locked too, for the per-thread
// error stack of thread-safe builds.
var hdf5Mu sync.Mutex

func lockHDF5() (unlock func()) {
	hdf5Mu.Lock()
	runtime.LockOSThread()
	C.sd_quiet()
	return func() {
		runtime.UnlockOSThread()
		hdf5Mu.Unlock()
	}
}

// lastError returns HDF5's description of the last failure.
func lastError() string {
	var buf [256]C.char
	C.sd_error(&buf[0])
	if s := C.GoString(&buf[0]); s != "" {
		return s
	}
	return "unknown HDF5 error"
}

// ReadFile reads the model of an OpenGM HDF5 file. arg is the file or
// file.h5:group; without a group the model is read from DefaultGroup or, if
// the file has no such group, from its only top-level group. Malformed
// files are reported as *ParseError.
func ReadFile(arg string) (*model.Model, error) {
	return ReadFileLimits(arg, model.Limits{})
}

// ReadFileLimits is ReadFile within lim (zero fields: the defaults): no
// dataset of more than lim.MaxBytes() bytes is read, and the model's sizes
// are checked as decode reads them.
func ReadFileLimits(arg string, lim model.Limits) (*model.Model, error) {
	lim = lim.OrDefault()
	file, group := SplitPath(arg)
	ok, err := isHDF5File(file)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, &ParseError{File: file, Index: -1, Msg: "not an HDF5 file (no HDF5 signature)"}
	}
	unlock := lockHDF5()
	defer unlock()
	cfile := C.CString(file)
	defer C.free(unsafe.Pointer(cfile))
	f := C.sd_open(cfile)
	if f < 0 {
		return nil, &ParseError{File: file, Index: -1, Msg: "cannot open HDF5 file: " + lastError()}
	}
	defer C.H5Fclose(f)
	if group, err = resolveGroup(f, file, group); err != nil {
		return nil, err
	}
	cgroup := C.CString(group)
	defer C.free(unsafe.Pointer(cgroup))
	g := C.sd_gopen(f, cgroup)
	if g < 0 {
		return nil, &ParseError{File: file, Dataset: group, Index: -1, Msg: "cannot open group: " + lastError()}
	}
	defer C.H5Gclose(g)
	return decodeLimits(&h5source{loc: g, maxLen: lim.MaxBytes() / 8}, file, group, lim)
}

// kind classifies name under loc, checking each path component: 0 missing,
// 1 group, 2 dataset, 3 other object.
func kind(loc C.hid_t, name string) (int, error) {
	parts := strings.Split(strings.Trim(name, "/"), "/")
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		cp := C.CString(p)
		k := int(C.sd_kind(loc, cp))
		C.free(unsafe.Pointer(cp))
		switch {
		case k < 0:
			return 0, errors.New(lastError())
		case k == 0:
			return 0, nil
		case i < len(parts)-1 && k != 1:
			return 0, fmt.Errorf("%s is not a group", p)
		case i == len(parts)-1:
			return k, nil
		}
	}
	return 0, nil
}

// resolveGroup returns the absolute path of the model group.
func resolveGroup(f C.hid_t, file, group string) (string, error) {
	name := strings.Trim(group, "/")
	if name == "" && group != "" {
		return "/", nil
	}
	if name == "" {
		if k, err := kind(f, DefaultGroup); err == nil && k == 1 {
			return "/" + DefaultGroup, nil
		}
		groups, err := rootGroups(f)
		if err != nil {
			return "", &ParseError{File: file, Index: -1, Msg: "cannot list the groups: " + err.Error()}
		}
		if len(groups) == 1 {
			return "/" + groups[0], nil
		}
		return "", &ParseError{File: file, Index: -1, Msg: fmt.Sprintf("no group %q holding a model; top-level groups: %s; select one as %s:GROUP", DefaultGroup, listGroups(groups), file)}
	}
	k, err := kind(f, name)
	switch {
	case err != nil:
		return "", &ParseError{File: file, Dataset: "/" + name, Index: -1, Msg: err.Error()}
	case k == 0:
		groups, _ := rootGroups(f)
		return "", &ParseError{File: file, Index: -1, Msg: fmt.Sprintf("no group %q; top-level groups: %s", name, listGroups(groups))}
	case k != 1:
		return "", &ParseError{File: file, Dataset: "/" + name, Index: -1, Msg: "not a group"}
	}
	return "/" + name, nil
}

func listGroups(groups []string) string {
	if len(groups) == 0 {
		return "none"
	}
	return strings.Join(groups, ", ")
}

// rootGroups lists the groups at the root of f.
func rootGroups(f C.hid_t) ([]string, error) {
	n := C.sd_nlinks(f)
	if n < 0 {
		return nil, errors.New(lastError())
	}
	var out []string
	buf := make([]C.char, 1024)
	for i := range int64(n) {
		l := C.sd_link_name(f, C.hsize_t(i), &buf[0], C.size_t(len(buf)))
		if l < 0 {
			return nil, errors.New(lastError())
		}
		name := C.GoString(&buf[0])
		if k, err := kind(f, name); err == nil && k == 1 {
			out = append(out, name)
		}
	}
	return out, nil
}

// h5source reads the datasets of an open model group.
type h5source struct {
	loc    C.hid_t
	maxLen int64 // entries of a dataset
}

// open opens dataset name and returns its length and class.
func (s *h5source) open(name string) (d C.hid_t, n int, cls C.int, found bool, err error) {
	k, err := kind(s.loc, name)
	switch {
	case err != nil:
		return -1, 0, 0, false, err
	case k == 0:
		return -1, 0, 0, false, nil
	case k == 1:
		return -1, 0, 0, true, errors.New("is a group, expected a dataset")
	case k != 2:
		return -1, 0, 0, true, errors.New("is not a dataset")
	}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	if d = C.sd_dopen(s.loc, cname); d < 0 {
		return -1, 0, 0, true, errors.New("cannot open dataset: " + lastError())
	}
	var rank C.int
	var cn C.longlong
	if C.sd_dinfo(d, &rank, &cn, &cls) < 0 {
		C.H5Dclose(d)
		return -1, 0, 0, true, errors.New("cannot read the dataset's shape or type: " + lastError())
	}
	switch {
	case rank != 1:
		C.H5Dclose(d)
		return -1, 0, 0, true, fmt.Errorf("has %d dimensions, expected a one-dimensional dataset", rank)
	case cn > maxEntries || int64(cn) > s.maxLen:
		C.H5Dclose(d)
		return -1, 0, 0, true, fmt.Errorf("has %d entries, more than %d (--max-entries raises it)", cn, min(maxEntries, s.maxLen))
	}
	return d, int(cn), cls, true, nil
}

func (s *h5source) uints(name string) ([]uint64, bool, error) {
	d, n, cls, found, err := s.open(name)
	if !found || err != nil {
		return nil, found, err
	}
	defer C.H5Dclose(d)
	switch cls {
	case C.SD_UINT:
		v := make([]uint64, n)
		if n > 0 && C.sd_read(d, C.SD_U64, unsafe.Pointer(&v[0])) < 0 {
			return nil, true, errors.New("cannot read: " + lastError())
		}
		return v, true, nil
	case C.SD_INT:
		v := make([]int64, n)
		if n > 0 && C.sd_read(d, C.SD_I64, unsafe.Pointer(&v[0])) < 0 {
			return nil, true, errors.New("cannot read: " + lastError())
		}
		u := make([]uint64, n)
		for i, x := range v {
			if x < 0 {
				return nil, true, fmt.Errorf("entry %d is negative (%d)", i, x)
			}
			u[i] = uint64(x)
		}
		return u, true, nil
	case C.SD_FLOAT:
		return nil, true, errors.New("holds floating-point numbers, expected integers")
	}
	return nil, true, errors.New("holds neither integers nor floating-point numbers")
}

func (s *h5source) floats(name string) ([]float64, bool, error) {
	d, n, cls, found, err := s.open(name)
	if !found || err != nil {
		return nil, found, err
	}
	defer C.H5Dclose(d)
	if cls == C.SD_OTHER {
		return nil, true, errors.New("holds neither integers nor floating-point numbers")
	}
	v := make([]float64, n)
	if n > 0 && C.sd_read(d, C.SD_F64, unsafe.Pointer(&v[0])) < 0 {
		return nil, true, errors.New("cannot read: " + lastError())
	}
	return v, true, nil
}

// WriteFile writes m to a new HDF5 file at path (replacing any file there)
// in OpenGM's layout under group (DefaultGroup if ""), every factor with
// its own explicit function (type 16000) holding -Log, +Inf for forbidden
// entries, its variables in increasing order. Values are stored as doubles
// (value type 1), datasets contiguous and uncompressed as OpenGM writes
// them.
func WriteFile(path, group string, m *model.Model) error {
	l, err := encode(m)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return writeData(path, l.datasets(group))
}

// writeData creates the HDF5 file path holding ds (absolute dataset paths,
// missing groups created). On failure the partial file is removed.
func writeData(path string, ds []namedData) (err error) {
	unlock := lockHDF5()
	defer unlock()
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	f := C.sd_create(cpath)
	if f < 0 {
		return fmt.Errorf("creating %s: %s", path, lastError())
	}
	defer func() {
		if C.H5Fclose(f) < 0 && err == nil {
			err = fmt.Errorf("closing %s: %s", path, lastError())
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	for _, d := range ds {
		if err := writeDataset(f, d); err != nil {
			return fmt.Errorf("writing %s: %s: %w", path, d.name, err)
		}
	}
	return nil
}

func writeDataset(f C.hid_t, d namedData) error {
	var kind C.int
	var ptr unsafe.Pointer
	var n int
	switch v := d.data.(type) {
	case []uint64:
		kind, n = C.SD_U64, len(v)
		if n > 0 {
			ptr = unsafe.Pointer(&v[0])
		}
	case []int64:
		kind, n = C.SD_I64, len(v)
		if n > 0 {
			ptr = unsafe.Pointer(&v[0])
		}
	case []float64:
		kind, n = C.SD_F64, len(v)
		if n > 0 {
			ptr = unsafe.Pointer(&v[0])
		}
	case []float32:
		kind, n = C.SD_F32, len(v)
		if n > 0 {
			ptr = unsafe.Pointer(&v[0])
		}
	default:
		return fmt.Errorf("unsupported data %T", d.data)
	}
	rank := 1
	dims := [2]C.hsize_t{C.hsize_t(n)}
	if d.rows > 0 {
		if n%d.rows != 0 {
			return fmt.Errorf("%d entries do not fill %d rows", n, d.rows)
		}
		rank = 2
		dims = [2]C.hsize_t{C.hsize_t(d.rows), C.hsize_t(n / d.rows)}
	}
	chunk := min(d.chunk, int(dims[rank-1]))
	cname := C.CString(d.name)
	defer C.free(unsafe.Pointer(cname))
	if C.sd_write(f, cname, kind, ptr, C.int(rank), &dims[0], C.hsize_t(chunk), C.int(d.gzip)) < 0 {
		return errors.New(lastError())
	}
	return nil
}
