"""What reading a logdir hands to the parts built on the index, without importing them.

The index cache (`reader.cache`) and the sharded first read of a run with several hosts
(`reader.index.sharding`, `reader.index.shards`) work on a `DebugLogdir`: they depend on the
index. The index must not depend on them back (that made an import circle: the cache
imported the index's schema while the index imported the cache; the shards index file sets
with the very class that started them). So `DebugLogdir.update` calls them through the slots
here, which the `reader` package fills when it is imported (`reader/__init__.py`) — always
before any of its modules is used, in this process or in a shard's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

Progress = Callable[[int, int], None]


class IndexCache(Protocol):
    """The persistent index cache of one open logdir (`reader.cache.snapshot.LogdirCache`)."""

    def before_update(self, logdir: Any) -> None: ...

    def after_update(self, logdir: Any) -> None: ...

    def scratch(self) -> Any: ...  # a folder for columns that may become its entry's, or None


@dataclass
class Hooks:
    """`cache()` makes a logdir's index cache; `sharded_read(logdir, progress)` does the
    first read of a run with several file sets and returns the bytes read."""

    cache: Callable[[], IndexCache] | None = None
    sharded_read: Callable[[Any, Progress | None], int] | None = None


HOOKS = Hooks()


def install(cache: Callable[[], IndexCache],
            sharded_read: Callable[[Any, Progress | None], int]) -> None:
    HOOKS.cache = cache
    HOOKS.sharded_read = sharded_read
