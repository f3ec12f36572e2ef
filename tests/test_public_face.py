"""The top level is the library (at most 24 names, none of the verification harness, which lives
in fsopt.verify); a name that left it still works until 0.2, with a DeprecationWarning."""
import importlib
import warnings

import pytest

import fsopt
import fsopt.verify

HARNESS = ["check", "planted_bug", "patch", "probe", "draws", "wrap_backend", "blind_certificate", "Margins",
           "Outcome"]


def test_the_top_level_is_small_and_holds_no_harness():
    assert len(fsopt.__all__) <= 24 and len(set(fsopt.__all__)) == len(fsopt.__all__)
    assert not set(HARNESS) & set(fsopt.__all__) and set(HARNESS) <= set(fsopt.verify.__all__)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the library's own names raise no warning
        assert all(getattr(fsopt, name) is not None for name in fsopt.__all__)


@pytest.mark.parametrize("name,home", [(n, "fsopt.verify") for n in HARNESS]
                         + [("SolveRecord", "fsopt.core.subproblem"), ("FitCertificate", "fsopt.core.fit_certificate")])
def test_an_old_top_level_name_still_works_with_a_deprecation_warning(name, home):
    with pytest.warns(DeprecationWarning, match=rf"fsopt\.{name} is deprecated .*import it from {home}"):
        old = getattr(fsopt, name)
    assert old is getattr(importlib.import_module(home), name)
    with pytest.warns(DeprecationWarning):  # every access warns, not only the first
        getattr(fsopt, name)


def test_the_new_home_raises_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from fsopt.verify import Margins, check, planted_bug  # noqa: F401


def test_an_unknown_name_is_still_an_attribute_error():
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        fsopt.no_such_name


def test_logo_prune_patience_is_deprecated_and_still_works_until_removed():
    from fsopt import LOGO
    from fsopt.datasets.spiral import make_spiral

    X, y = make_spiral(40, 3, random_state=0)
    plain = LOGO(prune_below=1e-8).fit(X, y)
    with pytest.warns(FutureWarning, match="prune_patience is deprecated"):
        patient = LOGO(prune_below=1e-8, prune_patience=1).fit(X, y)
    assert (patient.weights_ == plain.weights_).all()  # the default it had: one iteration
