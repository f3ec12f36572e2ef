import os
from pathlib import Path

import numpy as np
import pytest

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


@pytest.fixture(scope="session")
def data_dir():
    """The shared benchmark data (../shared/data beside the repository, or $FSOPT_DATA)."""
    path = Path(os.environ.get("FSOPT_DATA", SHARED_DATA))
    assert path.is_dir(), f"benchmark data not found at {path}; set FSOPT_DATA"
    return path


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
