"""neuronxcc.nki.typing: annotation stubs (`nt.tensor[shape, dtype]`); no checking."""


class _Annotation:
    def __getitem__(self, item):
        return self


tensor = _Annotation()
mutable_tensor = _Annotation()
scalar = _Annotation()
