# Declarations of the core types, so other Cython modules can use their C fields.
from libc.stdint cimport int64_t, uint64_t
from libcpp.unordered_set cimport unordered_set


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
    cdef public tuple grads
    cdef public object joint_grad
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
    cdef unordered_set[int64_t] _watched
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


cpdef Tensor convert_to_tensor(object value, object dtype=*)
cpdef object execute(Op op, tuple args, dict attrs)
