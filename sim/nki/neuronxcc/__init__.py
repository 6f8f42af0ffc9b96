"""Axon's NumPy simulator of the NKI Beta 1 API (not the AWS Neuron compiler); see sim/nki/README.md."""
