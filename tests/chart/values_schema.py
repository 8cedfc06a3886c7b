#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
"""tests/chart/values_schema.py - validates a chart's values against its
values.schema.json as Helm does (JSON Schema draft-07), with Debian's
python3-jsonschema, for tests/suites/chart.sh.

    values_schema.py SCHEMA <VALUES.json
    values_schema.py SCHEMA VALUES.json...

VALUES.json is what `helm-template values` prints. Prints "ok", or one
line per error, "invalid POINTER: MESSAGE" (POINTER the JSON Pointer of
the value refused); given files, each line starts with "FILE: ". Exit 0
valid, 1 invalid, 2 when the schema is not a draft-07 schema or a file
cannot be read.
"""
import json
import sys

import jsonschema


def pointer(path):
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def report(validator, values, prefix):
    """Prints the verdict on one set of values; True when valid."""
    errors = sorted(validator.iter_errors(values),
                    key=lambda e: list(map(str, e.absolute_path)))
    for e in errors:
        print(f"{prefix}invalid {pointer(e.absolute_path) or '/'}: {e.message}")
    if not errors:
        print(f"{prefix}ok")
    return not errors


def main():
    if len(sys.argv) < 2:
        print("usage: values_schema.py SCHEMA [VALUES.json...]", file=sys.stderr)
        return 2
    files = sys.argv[2:]
    try:
        with open(sys.argv[1], encoding="utf-8") as f:
            schema = json.load(f)
        if schema.get("$schema") != "http://json-schema.org/draft-07/schema#":
            raise ValueError("$schema is not draft-07's")
        jsonschema.Draft7Validator.check_schema(schema)
        values = []
        for name in files:
            with open(name, encoding="utf-8") as f:
                values.append(json.load(f))
        if not files:
            values.append(json.load(sys.stdin))
    except (OSError, ValueError, jsonschema.SchemaError) as e:
        print(f"values_schema.py: {e}", file=sys.stderr)
        return 2
    validator = jsonschema.Draft7Validator(schema)
    valid = True
    for name, v in zip(files or [None], values):
        valid = report(validator, v, f"{name}: " if name else "") and valid
    return 0 if valid else 1


if __name__ == "__main__":
    sys.exit(main())
