# Declarations of the core types, so other Cython modules can use their C fields.
from libc.stdint cimport int64_t, uint64_t


# A set of tensor ids: open addressing with linear probing in one flat array (ids are
# never 0, which marks a free slot). A tape asks it once per input of every op while it
# records, and adds each recorded output; a node-based set pays a malloc per add.
cdef struct IdSet:
    int64_t *slots
    Py_ssize_t capacity     # a power of two (0 until the first add)
    Py_ssize_t used


cdef class Tensor:
    cdef public object _value     # the backend array (an ndarray on the CPU)
    cdef readonly int64_t _id     # unique for the life of the process: tapes key on it
    cdef public bint _np_rules    # made by fasteager.numpy: operators use NumPy's promotion
    cdef object _scalar(self, str what)


cdef class VariableBase:
    cdef public Tensor _tensor
    cdef public bint trainable
    cdef readonly int64_t _vid
    cpdef object _read(self)


cdef class Op:
    cdef readonly str name
    cdef public object forward
    cdef tuple _grads
    cdef object _joint_grad
    cdef int _reads_ans            # whether a VJP reads the op's output (-1: not known yet)
    cdef readonly str kinds
    cdef uint64_t kind_mask
    cdef public bint same_dtype
    cdef public bint multi
    cdef public object check
    cdef readonly bint differentiable
    cdef public object no_grad_reason
    cdef public bint quiet
    cdef readonly int nin          # tensor inputs per call (-1: any number)
    cdef readonly frozenset attrs  # keywords a call may pass (besides name)
    cdef dict __dict__


cdef class Tape:
    cdef IdSet _watched
    cdef list _records
    cdef dict _var_reads
    cdef dict _variables
    cdef set _explicit_vars
    cdef public bint _persistent
    cdef public bint _watch_accessed
    cdef bint _recording
    cdef bint _entered
    cdef public bint _used
    cdef _watch_variable_value(self, VariableBase var, Tensor t)
    cdef int _start(self) except -1
    cdef int _stop(self) except -1


cpdef Tensor convert_to_tensor(object value, object dtype=*)
cpdef object execute(Op op, tuple args, dict attrs)
