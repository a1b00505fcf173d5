"""The pydantic Settings model and the fast key table describe the same keys (F-001)."""

from __future__ import annotations

from jlgcli.config.keys import KEYS
from jlgcli.settings import Settings


def test_model_and_table_agree() -> None:
    schema = Settings.model_json_schema()["properties"]
    assert list(schema) == [spec.name for spec in KEYS]
    for spec in KEYS:
        field = schema[spec.name]
        assert field["default"] == spec.default, spec.name
        assert field["description"] == spec.description, spec.name
        if spec.minimum is not None:
            assert field["minimum"] == spec.minimum, spec.name
        if spec.maximum is not None:
            assert field["maximum"] == spec.maximum, spec.name
        if spec.choices:
            assert tuple(field["enum"]) == spec.choices, spec.name


def test_model_validates_resolved_defaults() -> None:
    values = {spec.name: spec.default for spec in KEYS}
    assert Settings.model_validate(values).maxIterations == 20
