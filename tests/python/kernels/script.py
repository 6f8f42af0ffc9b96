"""A script as a user writes one: the kernel, its helper and a constant beside
code outside the NumPy subset (another import, a class, a main that calls axon)."""
import json, numpy as np  # noqa: E401

import axon

EPS = 1e-6
SIZES = {"small": {"M": 3, "N": 10}}


# Module-level data named like the kernel's parameters: the parameters shadow
# it, so it stays out of the kernel's program (np.random is outside the subset).
x = np.random.default_rng(0).standard_normal((3, 10)).astype(np.float32)


class Settings:  # outside the subset: left out of the kernel's program
    budget = 10


def mean_square(x: "f32[M, N]") -> "f32[M, 1]":
    return np.mean(x * x, axis=-1, keepdims=True)


@axon.jit(budget=10, max_candidates=2, variants=1)
def normalize(x: "f32[M, N]") -> "f32[M, N]":
    return x / np.sqrt(mean_square(x) + EPS)


def broken(x: "f32[M, N]"):
    return np.fft.fft(x)


def main():
    print(json.dumps(axon.optimize(normalize, "small").report["sizes"]))


if __name__ == "__main__":
    main()
