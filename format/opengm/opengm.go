// Package opengm reads and writes graphical models in the HDF5 layout of
// OpenGM 2 (the format of the OpenGM2 benchmark), checked against OpenGM's
// include/opengm/graphicalmodel/graphicalmodel_hdf5.hxx and the
// FunctionSerialization specializations of include/opengm/functions/.
//
// # Energy convention
//
// OpenGM minimizes the sum of its function values, without a logarithm. A
// value v becomes the log potential Log = -v, so the model energy
// E(x) = -sum Log is exactly OpenGM's energy. A value of +Inf becomes a
// forbidden entry; NaN and -Inf are rejected. WriteFile stores -Log, and
// +Inf for forbidden entries.
//
// # Layout
//
// A model is an HDF5 group, "gm" by convention, selected on the command
// line as file.h5:group. All its datasets are one-dimensional; integers are
// unsigned 64-bit. The group holds:
//
//   - header: 2, 0 (format version 2.0), the number of variables, the
//     number of factors, the number T of function types, then T pairs
//     (function type ID, number of functions of that type), then optionally
//     the stored value type (0 float, 1 double, 2 uint64, 3 int64; absent
//     in older files). The list names every type of the writer's type list,
//     also those with no function.
//   - numbers-of-states: the number of states of each variable. OpenGM's
//     loader ignores the variable count of the header and takes this
//     length; this reader requires both to agree.
//   - function-id-<ID>/indices and function-id-<ID>/values, for each type
//     with at least one function: the concatenated index (integer) and value
//     (number) sequences of its functions, in function order.
//   - factors: per factor, the function index (within its type), the
//     function type index (a position in the header's type list, not the
//     type ID), the arity k, then the k variable indices. OpenGM keeps them
//     strictly increasing; this reader accepts any order of distinct
//     variables. Argument j of the function is the j-th variable. Absent
//     when there is no factor.
//
// Function serializations (indices; values), shapes s, labels x:
//
//   - 16000 explicit: d, s_0..s_{d-1}; the prod(s) table entries with the
//     FIRST argument varying fastest (OpenGM's marray default,
//     LastMajorOrder). d = 0 is a constant: indices 0; one value.
//   - 16001 sparse: d, s_0..s_{d-1}, n, key_1..key_n; default, v_1..v_n.
//     A key is a first-fastest linear index like the explicit table's.
//   - 16002 absolute difference: s_0, s_1; w. f = w|x0-x1|.
//   - 16003 truncated absolute difference: s_0, s_1; t, w.
//     f = w min(|x0-x1|, t).
//   - 16004 squared difference: s_0, s_1; w. f = w (x0-x1)^2.
//   - 16005 truncated squared difference: s_0, s_1; t, w.
//     f = w min((x0-x1)^2, t) (the truncation applies to the square).
//   - 16006 Potts: s_0, s_1; a, b. f = a if x0 = x1, else b.
//   - 16007 Potts-N: d, s_0..s_{d-1}; a, b. f = a if all labels are equal,
//     else b.
//   - 16008 constant: d, s_0..s_{d-1}; c. f = c.
//   - 16011 generalized Potts: d, s_0..s_{d-1} (d <= 11, as OpenGM since
//     v2.3.6); Bell(d) values, one per partition of the arguments into
//     equal labels. The partition's pattern has bit b set when the b-th
//     pair (i, j), j < i, in the order (1,0), (2,0), (2,1), (3,0), ..., has
//     equal labels; value k belongs to the k-th smallest pattern (OpenGM's
//     Partitions::number2Index; for d <= 4 the cases of operator()).
//   - 16033 Field of Experts: E, d, L (experts, order, labels of every
//     argument); the E x d expert matrix J row by row, then alpha_1..E.
//     f = sum_e alpha_e ln(1 + (sum_j J_ej x_j)^2 / 2).
//
// Other types (16009 and 16010, the single-site functions, and custom
// types below 16000) are refused with an error naming the ID.
//
// Reading and writing need the C HDF5 library through cgo, built with the
// tag hdf5 (Debian: apt-get install libhdf5-dev pkg-config). Without the tag
// ReadFile and WriteFile return ErrNoHDF5; IsHDF5 and SplitPath work in
// both builds.
package opengm

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// DefaultGroup is the model group OpenGM's tools and benchmark files use.
const DefaultGroup = "gm"

// ErrNoHDF5 is returned by ReadFile and WriteFile in a build without the
// hdf5 tag.
var ErrNoHDF5 = errors.New("sdrmap was built without HDF5 support; install libhdf5-dev and build with -tags hdf5")

// ParseError locates a problem in an OpenGM file: the file, the HDF5 path
// of the dataset involved ("" if none) and the 0-based index of the element
// of that dataset (-1 if none).
type ParseError struct {
	File    string
	Dataset string
	Index   int
	Msg     string
}

func (e *ParseError) Error() string {
	switch {
	case e.Dataset == "":
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	case e.Index < 0:
		return fmt.Sprintf("%s: %s: %s", e.File, e.Dataset, e.Msg)
	}
	return fmt.Sprintf("%s: %s[%d]: %s", e.File, e.Dataset, e.Index, e.Msg)
}

// SplitPath splits a command-line argument file.h5:group into the file and
// the group. An argument naming an existing file, or without a colon, is
// all file (group ""; the readers then use DefaultGroup).
func SplitPath(arg string) (file, group string) {
	i := strings.LastIndexByte(arg, ':')
	if i <= 0 {
		return arg, ""
	}
	if _, err := os.Stat(arg); err == nil {
		return arg, ""
	}
	if _, err := os.Stat(arg[:i]); err != nil {
		return arg, ""
	}
	return arg[:i], arg[i+1:]
}

// hdf5Signature starts the HDF5 superblock, found at offset 0, 512, 1024,
// 2048, ... of the file (after an optional user block).
var hdf5Signature = []byte("\x89HDF\r\n\x1a\n")

// IsHDF5 reports whether the file named by arg (optionally file.h5:group)
// is an HDF5 file. It reads the signature only and needs no HDF5 library;
// it returns false when the file cannot be read.
func IsHDF5(arg string) bool {
	file, _ := SplitPath(arg)
	ok, _ := isHDF5File(file)
	return ok
}

func isHDF5File(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false, err
	}
	buf := make([]byte, len(hdf5Signature))
	for off := int64(0); off+int64(len(buf)) <= st.Size(); off = max(512, 2*off) {
		if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
			return false, err
		}
		if bytes.Equal(buf, hdf5Signature) {
			return true, nil
		}
	}
	return false, nil
}
