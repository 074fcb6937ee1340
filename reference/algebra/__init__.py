"""Shared algebra: finite multisets (bags), Z-sets, and (in later modules) monoids and groups."""

from reference.algebra.multiset import Multiset
from reference.algebra.zset import ZSet

__all__ = ["Multiset", "ZSet"]
