"""Every theorem check of `fsopt verify --quick` passes (each is also a test)."""
import pytest

from fsopt import verify

CHECKS = sorted(verify.checks())


@pytest.mark.parametrize("name", CHECKS)
def test_check_passes(name):
    result = verify.run(quick=True, names=[name], echo=None)
    assert result, name
    for res in result:
        assert res.outcome.passed, (res.check.name, res.outcome.measured, res.outcome.detail)


def test_every_method_registers_checks():
    prefixes = {name.split()[0] for name in CHECKS}
    assert {"LOGO", "NMMKL", "LFS"} <= prefixes, prefixes
