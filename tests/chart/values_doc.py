#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
"""tests/chart/values_doc.py - the chart's values, its values.schema.json
and the values table of its README.md name the same values with the same
defaults, for tests/suites/chart.sh:

    values_doc.py CHART

The table's rows are `| `KEY` | `DEFAULT` | WHAT |`: KEY a dotted path
of values.yaml, DEFAULT its value there as JSON (or YAML flow). A row
covers its key and everything below it. Checked:
  - every row's key is in values.yaml, with that default;
  - every value of values.yaml is covered by exactly one row;
  - the schema has a property for every key of values.yaml, down to where
    it says no more (an object without "properties"), and values.yaml a
    key for every property the schema lists (but the members of a mapping
    that is empty by default, such as affinity, and what Helm gives a
    dependency: global, enabled).
Prints one line per disagreement; exit 0 when there is none, 1 when there
are, 2 when a file cannot be read.
"""
import json
import re
import sys

import yaml

# what Helm gives a chart used as a dependency, which the schema must
# allow and values.yaml does not hold
HELM_GIVES = {("global",), ("enabled",)}
ROW = re.compile(r"^\| `([^`]+)` \| `([^`]*)` \| .* \|$")


def rows(readme):
    """(key, default text, line number) of each row of the values table."""
    out = []
    with open(readme, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = ROW.match(line.rstrip("\n"))
            if m:
                out.append((m.group(1), m.group(2), n))
    return out


def leaves(value, path=()):
    """The paths of values.yaml: each mapping's keys, down to non-mappings
    and empty mappings."""
    if isinstance(value, dict) and value:
        for k, v in value.items():
            yield path + (k,)
            yield from leaves(v, path + (k,))


def lookup(value, path):
    for k in path:
        if not isinstance(value, dict) or k not in value:
            raise KeyError(".".join(path))
        value = value[k]
    return value


def schema_paths(schema, path=()):
    """The paths the schema names properties for."""
    for k, v in (schema.get("properties") or {}).items():
        yield path + (k,)
        yield from schema_paths(v, path + (k,))


def schema_node(schema, path):
    """The schema of path, or None when the schema says nothing of it;
    "free" when it is under an object the schema does not detail."""
    node = schema
    for k in path:
        props = node.get("properties")
        if props is None:
            return "free"
        if k not in props:
            return None
        node = props[k]
    return node


def main():
    if len(sys.argv) != 2:
        print("usage: values_doc.py CHART", file=sys.stderr)
        return 2
    chart = sys.argv[1]
    try:
        with open(f"{chart}/values.yaml", encoding="utf-8") as f:
            values = yaml.safe_load(f)
        with open(f"{chart}/values.schema.json", encoding="utf-8") as f:
            schema = json.load(f)
        table = rows(f"{chart}/README.md")
    except (OSError, ValueError, yaml.YAMLError) as e:
        print(f"values_doc.py: {e}", file=sys.stderr)
        return 2
    problems = []
    if not table:
        problems.append("README.md: no row of the values table")
    documented = {}
    for key, default, n in table:
        path = tuple(key.split("."))
        if path in documented:
            problems.append(f"README.md:{n}: {key} has a row already (line {documented[path]})")
        documented[path] = n
        try:
            want = lookup(values, path)
        except KeyError:
            problems.append(f"README.md:{n}: {key} is not in values.yaml")
            continue
        try:
            got = yaml.safe_load(default)
        except yaml.YAMLError:
            problems.append(f"README.md:{n}: {key}: the default `{default}` does not parse")
            continue
        if got != want:
            problems.append(f"README.md:{n}: {key}: the default is {json.dumps(got)}, "
                            f"values.yaml has {json.dumps(want)}")
    for path in leaves(values):
        covering = [p for p in documented if path[:len(p)] == p]
        key = ".".join(path)
        if not covering and not any(p[:len(path)] == path for p in documented):
            problems.append(f"values.yaml: {key} has no row in README.md")
        if len(covering) > 1:
            problems.append(f"values.yaml: {key} is covered by {len(covering)} rows")
        node = schema_node(schema, path)
        if node is None:
            problems.append(f"values.schema.json: no property {key}")
    for path in schema_paths(schema):
        if path in HELM_GIVES:
            continue
        try:
            lookup(values, path)
        except KeyError:
            # the members the schema allows in a mapping that is empty by
            # default (affinity) are not values of their own
            if lookup(values, path[:-1]) != {}:
                problems.append(f"values.yaml: no {'.'.join(path)}, which values.schema.json lists")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
