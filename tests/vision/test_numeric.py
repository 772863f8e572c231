import numpy as np
import pytest

from vision.numeric import median, quantile


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 100, 101, 17000, 17001])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_median_is_numpys_value_and_type(n: int, dtype: type) -> None:
    rng = np.random.default_rng(n)
    # Repeated values too: the middle pair is often one value twice.
    values = np.round(rng.normal(size=n) * 50).astype(dtype) / 7
    got, want = median(values), np.median(values)
    assert got == want and type(got) is type(want)


def test_median_of_a_2d_array_is_of_all_its_values() -> None:
    values = np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::-1]
    assert median(values) == np.median(values) == np.float32(5.5)


def test_median_with_a_nan_is_nan() -> None:
    assert np.isnan(median(np.array([1.0, np.nan, 2.0, 3.0], np.float32)))


def test_median_of_integers_is_numpys() -> None:
    values = np.array([1, 2, 3, 4])
    assert median(values) == np.median(values) == 2.5


@pytest.mark.parametrize("n", [1, 2, 3, 7, 200, 201, 4000])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("q", [0.0, 0.01, 0.25, 0.5, 0.9, 0.995, 1.0])
def test_quantile_is_numpys_value(n: int, dtype: type, q: float) -> None:
    rng = np.random.default_rng(n)
    # Repeated values too, and the interpolation's both halves (weights below and above 0.5).
    for values in (rng.uniform(size=n), np.round(rng.normal(size=n) * 20) / 7):
        values = values.astype(dtype)
        kept = values.copy()
        assert quantile(values, q) == float(np.quantile(values, q))
        assert np.array_equal(values, kept)


def test_quantile_with_a_nan_is_nan() -> None:
    assert np.isnan(quantile(np.array([1.0, np.nan, 2.0, 3.0], np.float32), 0.995))
