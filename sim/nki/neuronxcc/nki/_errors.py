"""The one error a kernel can cause (NkiSimError) and where in the kernel it points.

Every rule violation carries a rule id (R1..R29 of sim/nki/README.md, or 'kernel' /
'unsupported') and the file:line of the kernel source line responsible: the innermost
stack frame outside this package. Anything else raised from inside the package is a
simulator bug, not a kernel error.
"""
import os
import sys

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


class NkiSimError(Exception):
    """A kernel broke an NKI rule. `.rule` is the rule id, `.location` is (file, line)."""

    def __init__(self, rule, message, location=None):
        self.rule = rule
        self.message = message
        self.location = location
        super().__init__(self.format())

    def format(self):
        file, line = self.location if self.location else ("<unknown>", 0)
        return "%s:%d: error: [%s] %s" % (file, line, self.rule, self.message)


def kernel_location():
    """(file, line) of the innermost frame outside this package: the kernel's call."""
    frame = sys._getframe(1)
    while frame is not None:
        if not frame.f_code.co_filename.startswith(PACKAGE_DIR):
            return (frame.f_code.co_filename, frame.f_lineno)
        frame = frame.f_back
    return ("<unknown>", 0)


def fail(rule, message, location=None):
    raise NkiSimError(rule, message, location or kernel_location())


def format_location(location):
    return "%s:%d" % location
