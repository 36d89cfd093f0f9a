"""The persistent index cache: reopening a logdir indexed before without reading it again.

See `reader.cache.snapshot` (what is cached and when it is valid) and `reader.cache.store`
(where it lives on disk, atomic writes, eviction).
"""
