#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
"""tests/tools/ci_run.py - runs the commands of a CI drop-in here, as the CI
would (tests/suites/ci.sh):

  ci_run.py action ACTION_YML WORKDIR TEMP NAME=VALUE...
      the `run` steps of a composite GitHub Action, in order, in WORKDIR,
      with the inputs NAME=VALUE (the others at their defaults), each with
      its `env` (${{ inputs.* }}, ${{ runner.temp }} and
      ${{ steps.ID.outputs.* }} resolved), GITHUB_ACTION_PATH, GITHUB_PATH
      and GITHUB_OUTPUT as the runner sets them; a step that `uses` an
      action is listed, not run. Stops at the first step that fails.
  ci_run.py gitlab TEMPLATE_YML JOB WORKDIR NAME=VALUE...
      the `script` of JOB, its lines run by one `sh -e` in WORKDIR, with
      the job's `variables` (NAME=VALUE replacing them).

Prints what it runs on stderr and exits with the status of the last
command run (a step, or the script).
"""
import os
import re
import subprocess
import sys

import yaml


def resolve(text, inputs, temp, outputs):
    def one(m):
        expr = m.group(1).strip()
        if expr.startswith("inputs."):
            return inputs.get(expr[7:], "")
        if expr == "runner.temp":
            return temp
        s = re.match(r"steps\.([\w-]+)\.outputs\.([\w-]+)$", expr)
        if s:
            return outputs.get(s.group(1), {}).get(s.group(2), "")
        raise SystemExit("ci_run: cannot resolve ${{ %s }}" % expr)
    return re.sub(r"\$\{\{(.*?)\}\}", one, str(text))


def read_pairs(path):
    pairs = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                if "=" in line:
                    k, v = line.rstrip("\n").split("=", 1)
                    pairs[k] = v
    return pairs


def run_action(action_yml, workdir, temp, assignments):
    with open(action_yml) as f:
        action = yaml.safe_load(f)
    inputs = {k: str(v.get("default", "")) for k, v in action["inputs"].items()}
    for a in assignments:
        k, v = a.split("=", 1)
        if k not in inputs:
            raise SystemExit("ci_run: the action has no input '%s'" % k)
        inputs[k] = v
    os.makedirs(temp, exist_ok=True)
    github_path = os.path.join(temp, "github_path")
    outputs = {}
    path = os.environ["PATH"]
    status = 0
    for i, step in enumerate(action["runs"]["steps"]):
        name = step.get("name", "step %d" % i)
        if "uses" in step:
            print("ci_run: not run here: %s (uses %s)" % (name, step["uses"]),
                  file=sys.stderr)
            continue
        output_file = os.path.join(temp, "output.%d" % i)
        env = dict(os.environ)
        extra = []
        if os.path.exists(github_path):
            with open(github_path) as f:
                extra = [line.strip() for line in f if line.strip()]
        env["PATH"] = ":".join(list(reversed(extra)) + [path])
        env["GITHUB_ACTION_PATH"] = os.path.dirname(os.path.abspath(action_yml))
        env["GITHUB_PATH"] = github_path
        env["GITHUB_OUTPUT"] = output_file
        env["RUNNER_TEMP"] = temp
        for k, v in (step.get("env") or {}).items():
            env[k] = resolve(v, inputs, temp, outputs)
        print("ci_run: step: %s" % name, file=sys.stderr)
        status = subprocess.run([step.get("shell", "sh"), "-e", "-c",
                                 step["run"]], cwd=workdir, env=env).returncode
        if "id" in step:
            outputs[step["id"]] = read_pairs(output_file)
        if status != 0:
            print("ci_run: step '%s' exited %d" % (name, status),
                  file=sys.stderr)
            break
    for step_id, pairs in outputs.items():
        for k, v in pairs.items():
            print("%s.%s=%s" % (step_id, k, v))
    return status


def run_gitlab(template, job, workdir, assignments):
    with open(template) as f:
        jobs = yaml.safe_load(f)
    spec = jobs[job]
    env = dict(os.environ)
    for k, v in (spec.get("variables") or {}).items():
        env[k] = str(v)
    for a in assignments:
        k, v = a.split("=", 1)
        env[k] = v
    script = "\n".join(spec["script"])
    print("ci_run: job %s" % job, file=sys.stderr)
    return subprocess.run(["sh", "-e", "-c", script], cwd=workdir,
                          env=env).returncode


def main():
    if len(sys.argv) >= 5 and sys.argv[1] == "action":
        return run_action(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    if len(sys.argv) >= 5 and sys.argv[1] == "gitlab":
        return run_gitlab(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
