"""ViT patch embedding: the image is cut into 2x2 patches by reshapes whose
sizes are h // P and w // P, each patch flattened and projected, the class
token put in front with np.vstack, and position embeddings added."""
import numpy as np

SIZES = {
    "test": {"C": 3, "Gh": 2, "Gw": 3, "E": 8},
    "bench": {"C": 3, "Gh": 14, "Gw": 14, "E": 768},
}

P = 2


def vit_patch_embed_cls(img: "f32[C, 2*Gh, 2*Gw]", w_patch: "f32[4*C, E]", cls_token: "f32[E]",
                        pos: "f32[Gh*Gw + 1, E]") -> "f32[Gh*Gw + 1, E]":
    c, h, w = img.shape
    gh, gw = h // P, w // P
    patches = img.reshape(c, gh, P, gw, P).transpose(1, 3, 0, 2, 4).reshape(gh * gw, c * P * P)
    tokens = np.vstack([cls_token, patches @ w_patch])
    return tokens + pos
