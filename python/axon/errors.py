"""Axon's exceptions. Every error the package raises is an ``axon.Error``."""


class Error(Exception):
    """Base class of Axon's errors."""


class _Located(Error):
    """An error in the user's input, with its place when one is known.

    ``str(e)`` is the diagnostic as the command line prints it
    (``file:line:col: error: message``, the source line and a caret);
    ``e.message`` is the bare message; ``file`` is None and ``line``/``col``
    are 0 when the location is unknown.
    """

    def __init__(self, text, message=None, file=None, line=0, col=0):
        super().__init__(text.rstrip("\n"))
        self.message = text if message is None else message
        self.file = file
        self.line = line
        self.col = col


class ProgramError(_Located):
    """A bad program or request: a construct outside the NumPy subset, a shape
    error, an unknown size preset, a size that does not bind."""


class NoValidKernelError(_Located):
    """The search ran but no candidate kernel passed validation."""


class InternalError(Error):
    """A bug in Axon (a broken invariant): please report it with the input."""


class ArgumentError(Error, ValueError):
    """A kernel called with the wrong arguments: their number, a shape, or a
    dtype whose values are not all exactly float32."""


class LoadError(Error):
    """An output folder that cannot be loaded: missing files, or a kernel.so
    whose embedded description differs from its kernel.json."""
