"""Java classes and static methods looked up once per process, not once per use.

Py4J resolves ``jvm.a.b.C.m`` one name at a time, each a round trip to the
JVM: ``a``, ``a.b`` are tried as classes first, and a miss searches every jar
of the class path (about 280 in the pyspark wheel); a bare name
(``jvm.functions``) is tried as a class of each of the view's imported
packages in turn. Neither answer is remembered. PySpark looks up
``functions`` and ``PythonUtils`` that way for every column it builds, and the
engines' scratch frames rebuild a plan leaf through three more classes: a
small fixpoint update made about 2,300 such misses (a profile of the driver's
JVM: 8 % of its samples in the class loader's jar search).

:func:`pin` gives the process's Py4J view the classes PySpark names by their
bare names, as objects that keep each static method once looked up;
:func:`java_class` is the engines' own cache. What a lookup returns is a
class's name and a method's name: nothing held here refers to a JVM object.
"""

from __future__ import annotations

from typing import Any

#: the classes PySpark names on ``SparkContext._jvm`` while building plans, by their full
#: names: bare in ``functions.col`` and ``PythonUtils.toSeq``, full in
#: ``pyspark.sql.functions``' calls
PINNED = (
    "org.apache.spark.sql.functions",
    "org.apache.spark.api.python.PythonUtils",
)


class StaticMembers:
    """A Java class whose static members are looked up once each (a Py4J
    ``JavaClass`` looks a member up again at every access)."""

    def __init__(self, java_class: Any) -> None:
        self._class = java_class

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        member = getattr(self._class, name)
        setattr(self, name, member)
        return member

    def __call__(self, *args: Any) -> Any:  # a constructor call
        return self._class(*args)


def pin(jvm: Any) -> None:
    """Give the Py4J view ``jvm`` (``SparkContext._jvm``) each :data:`PINNED`
    class under its bare and its full name: an attribute of the view's own is
    found without asking the JVM. Idempotent."""
    for fqn in PINNED:
        vars(jvm)[fqn.rsplit(".", 1)[1]] = java_class(jvm, fqn)


def java_class(jvm: Any, fqn: str) -> Any:
    """The class ``fqn`` of the Py4J view ``jvm``, looked up once per view (kept
    on the view under its full name)."""
    found = vars(jvm).get(fqn)
    if found is None:
        found = vars(jvm)[fqn] = StaticMembers(getattr(jvm, fqn))
    return found
