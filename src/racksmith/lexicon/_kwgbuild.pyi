import numpy as np
import numpy.typing as npt

TILE_BITS: dict[str, int]
KWG_LAYOUT: dict[str, int]

def build(
    text: npt.NDArray[np.uint8], offsets: npt.NDArray[np.int64], gaddag: bool, share_tails: bool
) -> npt.NDArray[np.uint32]: ...
