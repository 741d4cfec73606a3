"""A registry of renderers whose modules are imported when a renderer is first asked for.

The command line names every format in ``--help``; importing every renderer to do so would
load the validation stack (jsonschema, tabulate, ...) before anything is shown.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from enum import Enum
from typing import Generic, TypeVar

F = TypeVar("F", bound=Enum)
R = TypeVar("R", bound=Callable[..., str])


class LazyRenderers(Mapping[F, R], Generic[F, R]):
    """``format -> render``; ``modules`` maps each format to the module (in ``package``) whose
    ``render`` function it is."""

    def __init__(self, package: str, modules: Mapping[F, str]) -> None:
        self._package = package
        self._modules = dict(modules)

    def __getitem__(self, fmt: F) -> R:
        module = importlib.import_module(f"{self._package}.{self._modules[fmt]}")
        render: R = module.render
        return render

    def __iter__(self) -> Iterator[F]:
        return iter(self._modules)

    def __len__(self) -> int:
        return len(self._modules)
