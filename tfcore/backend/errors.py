"""TensorFlow's exception hierarchy (``tf.errors``).

Every op failure is an :class:`OpError`; the message names the op, the shapes and
the dtypes involved so a user can find the bad call without a debugger.
"""

__all__ = [
    "OpError", "CancelledError", "UnknownError", "InvalidArgumentError", "DeadlineExceededError",
    "NotFoundError", "AlreadyExistsError", "PermissionDeniedError", "ResourceExhaustedError",
    "FailedPreconditionError", "AbortedError", "OutOfRangeError", "UnimplementedError",
    "InternalError", "UnavailableError", "DataLossError", "UnauthenticatedError", "OK",
    "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
    "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
    "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
]

OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """Base class of op failures, as ``tf.errors.OpError``.

    Accepts TF's ``(node_def, op, message)`` signature and, for convenience, a
    single message argument.
    """

    error_code = UNKNOWN

    def __init__(self, node_def=None, op=None, message=None, *args):
        if message is None and op is None and isinstance(node_def, str):
            message, node_def = node_def, None
        if args and isinstance(args[0], int) and type(self) is OpError:
            self.error_code = args[0]  # TF: OpError(node_def, op, message, error_code)
        self.node_def = node_def
        self.op = op
        self.message = message if message is not None else ""
        super().__init__(self.message)

    def __str__(self):
        return self.message

    def __reduce__(self):
        return (type(self), (self.node_def, None, self.message))


class CancelledError(OpError):
    error_code = CANCELLED


class UnknownError(OpError):
    error_code = UNKNOWN


class InvalidArgumentError(OpError, ValueError):
    """Raised when an op receives an argument of the wrong shape, dtype or value.

    It also derives from ``ValueError`` so code written for NumPy-style errors
    keeps working.
    """

    error_code = INVALID_ARGUMENT


class DeadlineExceededError(OpError):
    error_code = DEADLINE_EXCEEDED


class NotFoundError(OpError):
    error_code = NOT_FOUND


class AlreadyExistsError(OpError):
    error_code = ALREADY_EXISTS


class PermissionDeniedError(OpError):
    error_code = PERMISSION_DENIED


class ResourceExhaustedError(OpError):
    error_code = RESOURCE_EXHAUSTED


class FailedPreconditionError(OpError):
    error_code = FAILED_PRECONDITION


class AbortedError(OpError):
    error_code = ABORTED


class OutOfRangeError(OpError):
    error_code = OUT_OF_RANGE


class UnimplementedError(OpError):
    error_code = UNIMPLEMENTED


class InternalError(OpError):
    error_code = INTERNAL


class UnavailableError(OpError):
    error_code = UNAVAILABLE


class DataLossError(OpError):
    error_code = DATA_LOSS


class UnauthenticatedError(OpError):
    error_code = UNAUTHENTICATED


class OperatorNotAllowedInGraphError(TypeError):
    """A Python operation on a symbolic tensor that graphs cannot express (TF's error of the same name).

    Raised when the code of a traced tf.data function reads an element's value into Python
    (``bool(x)``, ``int(x)``, ``np.asarray(x)``): elements are graph tensors there, as in TF.
    """
