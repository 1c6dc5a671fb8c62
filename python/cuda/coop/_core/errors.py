"""The errors of cuda.coop. Every message names the call, the argument, the value
given and what was expected; compile-time errors also name the user's function,
file and line."""

from __future__ import annotations


class CoopError(Exception):
    """Base class of every cuda.coop error."""


class CoopCompilerContextRequiredError(CoopError, TypeError):
    """A cooperative primitive was called on the host instead of inside a kernel."""


class InvalidGroupError(CoopError, ValueError):
    """A bad group shape, incomplete warps, a bad partition or a group mismatch."""


class PayloadInferenceError(CoopError, TypeError):
    """A payload's dtype or extent is unknown or conflicting."""


class UnsupportedOperationError(CoopError, NotImplementedError):
    """A family x group x dtype x option combination that is not supported."""


class EscapingGroupDescriptorError(CoopError, TypeError):
    """A group descriptor is returned, stored or passed to a runtime call."""


class UnknownNameError(CoopError, AttributeError):
    """A kernel calls or reads a name cuda.coop does not have (``coop.max``, ``coop.summ``):
    the message names the closest ones, or the call that does the job."""


class ProviderCompileError(CoopError, RuntimeError):
    """NVRTC rejected a generated provider; the message holds its log and source path."""


class ForkedProcessError(CoopError, RuntimeError):
    """A kernel compile in a process forked after the kernel compiler had compiled in its parent,
    which would hang forever: worker processes that compile start with the 'spawn' method."""


class IncompatibleCompilerError(CoopError, ImportError):
    """The installed kernel compiler is a version cuda.coop does not support."""


class InvalidArgumentError(CoopError, ValueError):
    """An option or operand value outside what the primitive allows."""


class InvalidArgumentTypeError(InvalidArgumentError, TypeError):
    """An argument of the wrong kind (a bool where a count goes, a number where a name
    goes): an InvalidArgumentError that is also the TypeError a caller of the seed's API catches."""


class ToolkitError(CoopError, RuntimeError):
    """NVRTC, nvJitLink or the CUDA/CCCL headers could not be found or used."""


class CacheError(CoopError, RuntimeError):
    """The provider cache could not do what was asked of it explicitly (`coop cache stats`,
    `coop cache clear`). A cache that cannot be used during a compile is a CoopWarning."""


class CoopWarning(UserWarning):
    """A fault that cost a compile or a fallback and nothing else: a provider cache that
    cannot be used, an environment variable with a value cuda.coop does not accept."""


# Tracebacks and reprs name the classes where users import them from.
for _error in (
    CoopError,
    CoopCompilerContextRequiredError,
    InvalidGroupError,
    PayloadInferenceError,
    UnsupportedOperationError,
    EscapingGroupDescriptorError,
    UnknownNameError,
    ForkedProcessError,
    ProviderCompileError,
    IncompatibleCompilerError,
    InvalidArgumentError,
    InvalidArgumentTypeError,
    ToolkitError,
    CoopWarning,
):
    _error.__module__ = "cuda.coop"

# The engine reports errors by kind; each kind has one public class.
_ENGINE_KINDS = {
    "InvalidGroup": InvalidGroupError,
    "UnsupportedOperation": UnsupportedOperationError,
    "InvalidArgument": InvalidArgumentError,
    "ProviderCompile": ProviderCompileError,
    "Toolkit": ToolkitError,
    "Link": ToolkitError,
    "Cache": CacheError,
}


def from_engine_error(error: Exception) -> CoopError:
    """The public error for an engine error (which carries `.kind`); a kind without a class of
    its own ("Internal": a C++ fault the engine did not expect) is a plain CoopError."""
    kind = getattr(error, "kind", None)
    return _ENGINE_KINDS.get(kind, CoopError)(str(error))
