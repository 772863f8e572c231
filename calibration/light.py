"""The colour of light sources, to simulate a lamp the camera is not white-balanced for.

A lamp of colour temperature T is modelled as a black body (Planck's law). Its colour as a
camera sees it is the integral of its spectrum against the CIE 1931 colour matching functions
(here an analytic multi-lobe Gaussian fit of them, accurate to about 1 %), converted to linear
sRGB. A camera whose white balance is fixed for ``balanced_for`` kelvin multiplies each
channel; under another lamp every surface's linear colour is scaled per channel by the ratio
of the two lamps' colours (the von Kries model).
"""

from __future__ import annotations

import numpy as np

# Planck's second radiation constant, metre kelvin.
_C2 = 1.4388e-2
# Linear sRGB from CIE XYZ (D65 white).
_XYZ_TO_RGB = np.array(
    [[3.2406, -1.5372, -0.4986], [-0.9689, 1.8758, 0.0415], [0.0557, -0.2040, 1.0570]]
)
_NM = np.arange(380.0, 781.0, 2.0)


def _lobe(nm: np.ndarray, mu: float, s_left: float, s_right: float) -> np.ndarray:
    s = np.where(nm < mu, s_left, s_right)
    return np.exp(-0.5 * ((nm - mu) / s) ** 2)


def _cmf(nm: np.ndarray) -> np.ndarray:
    """CIE 1931 2-degree colour matching functions, float64 (len(nm), 3) x-bar, y-bar, z-bar."""
    x = (
        1.056 * _lobe(nm, 599.8, 37.9, 31.0)
        + 0.362 * _lobe(nm, 442.0, 16.0, 26.7)
        - 0.065 * _lobe(nm, 501.1, 20.4, 26.2)
    )
    y = 0.821 * _lobe(nm, 568.8, 46.9, 40.5) + 0.286 * _lobe(nm, 530.9, 16.3, 31.1)
    z = 1.217 * _lobe(nm, 437.0, 11.8, 36.0) + 0.681 * _lobe(nm, 459.0, 26.0, 13.8)
    return np.stack([x, y, z], axis=1)


def blackbody_rgb(kelvin: float) -> np.ndarray:
    """Linear sRGB colour of a black body at ``kelvin``, scaled so that green is 1.

    Returns:
        float64 (3,) in R, G, B order.
    """
    if not 1000.0 <= kelvin <= 20000.0:
        raise ValueError(f"colour temperature must be 1000..20000 K, not {kelvin}")
    metres = _NM * 1e-9
    spectrum = 1.0 / (metres**5 * (np.exp(_C2 / (metres * kelvin)) - 1.0))
    xyz = spectrum @ _cmf(_NM)
    rgb = _XYZ_TO_RGB @ xyz
    return rgb / rgb[1]


def camera_gains_bgr(
    kelvin: float, balanced_for: float = 5000.0, *, encoded: bool = True
) -> tuple[float, float, float]:
    """Per-channel gains (B, G, R) a lamp of ``kelvin`` puts on a camera balanced for another.

    Args:
        kelvin: the lamp's colour temperature (2700 K: warm bulb; 6500 K: overcast daylight).
        balanced_for: the temperature the camera's fixed white balance assumes.
        encoded: gains for gamma-encoded 8-bit values (exponent 1/2.2) rather than linear.

    Returns:
        (b, g, r) gains, green = 1.
    """
    ratio = blackbody_rgb(kelvin) / blackbody_rgb(balanced_for)
    if encoded:
        ratio = ratio ** (1.0 / 2.2)
    r, g, b = (float(v) for v in ratio)
    return (b / g, 1.0, r / g)
