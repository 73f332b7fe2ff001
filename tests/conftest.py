"""Shared fixtures: one real embedded FalkorDB engine per test session, in a temporary home."""
from __future__ import annotations

import pytest

from protoxplore.embedded import EmbeddedEngine
from protoxplore.settings import Settings
from protoxplore.store import FalkorStore


@pytest.fixture(scope="session")
def home(tmp_path_factory):
    path = tmp_path_factory.mktemp("home")
    yield path
    EmbeddedEngine(path).stop()


@pytest.fixture(scope="session")
def settings(home) -> Settings:
    return Settings.from_env(home=home, neo4j_uri="", graph="protoxplore")


@pytest.fixture(scope="session")
def store(settings):
    s = FalkorStore(settings)
    s.apply_schema()
    yield s
    s.close()
