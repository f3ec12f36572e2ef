"""LOGO: local-learning-based feature selection (Sun, Todorovic, Goodison, TPAMI 2010)."""
from .estimator import LOGO
from .garrote import GarroteLogistic, MarginGarrote
from .gradient_path import gradient_path as solve_gradient_path
from .method import LogoFixedPoint

__all__ = ["LOGO", "GarroteLogistic", "MarginGarrote", "LogoFixedPoint", "solve_gradient_path"]
