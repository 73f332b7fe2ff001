"""The seven levels of the ProtoGraph, in one table that the builder, the writer, the CLI and the
web app all read (paper 001 Sec. 4.1).

Edges (IMPACTS) point from a level toward the victim: L6 -> L5 -> ... -> L0. A node's neighbour
**toward the victim** is one level down (a victim stage's victim query), its neighbours **toward
the culprits** one level up (the resources that explain a victim stage). Every node has a key,
its level's prefix and what it is about (``vs/<stage key>``), and a uid, ``<analysis>|<key>``,
unique in the store.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Level:
    number: int
    label: str  # the node label in the graph
    prefix: str  # of the node keys
    title: str  # as pages and the CLI name the level
    report: str  # the key of the level's rows in an explanation (report.explain, explain --json)

    @property
    def heading(self) -> str:
        return f"L{self.number} {self.title}"

    def key(self, about):
        """The key of the node of this level about ``about`` (a string, or a pandas Series of them)."""
        return self.prefix + about

    def about(self, uid: str) -> str:
        """What the node ``uid`` of this level is about: the inverse of ``uid(analysis, level.key(about))``."""
        return uid.split("|", 1)[1].removeprefix(self.prefix)


VICTIM_QUERY = Level(0, "VictimQuery", "vq/", "Victim query", "victim")
VICTIM_STAGE = Level(1, "VictimStage", "vs/", "Victim stages", "victim_stages")
IMMEDIATE = Level(2, "ImmediateExplanation", "ie/", "Immediate explanations (resources)", "resources")
DEEP = Level(3, "DeepExplanation", "de/", "Deep explanations (resource on a host)", "host_resources")
BLAME = Level(4, "BlameExplanation", "be/", "Blame explanations (culprit stage on a resource of a host)",
              "blame")
CULPRIT_STAGE = Level(5, "CulpritStage", "cs/", "Culprit stages", "culprit_stages")
CULPRIT_QUERY = Level(6, "CulpritQuery", "cq/", "Culprit queries", "culprit_queries")
LEVELS = (VICTIM_QUERY, VICTIM_STAGE, IMMEDIATE, DEEP, BLAME, CULPRIT_STAGE, CULPRIT_QUERY)


def uid(analysis: str, key):
    """The uid of the node ``key`` (a string or a Series) of ``analysis``: every uid the writer gives
    a node is made here (the write files of ``cypher/`` take them as parameters)."""
    return analysis + "|" + key


def host_uid(analysis: str, name):
    """The uid of a host (a string or a Series of host names): hosts are no level, but share the scheme."""
    return uid(analysis, "host/" + name)


def app_uid(analysis: str, app_key):
    """The uid of an application (a string or a Series of application keys)."""
    return uid(analysis, "app/" + app_key)


def resource_uid(analysis: str, name):
    """The uid of a resource (a string or a Series of resource names)."""
    return uid(analysis, "resource/" + name)


def task_uid(analysis: str, task):
    """The uid of a task as a run of PerfXplain's log of runs (a string or a Series of
    ``STAGE_KEY/task-ID``): tasks are no level, but share the scheme."""
    return uid(analysis, "task/" + task)


def straggler_uid(analysis: str, kind: str, about: str) -> str:
    """The uid of Hound's nodes: ``kind`` is ``straggler-stage`` or ``straggler-cause``."""
    return uid(analysis, f"{kind}/{about}")
