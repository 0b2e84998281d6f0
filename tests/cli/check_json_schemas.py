#!/usr/bin/env python3
"""Every versioned JSON output of the agentskills program against its schema in docs/schemas/.

    check_json_schemas.py AGENTSKILLS SCHEMA_DIR TEST_DATA_DIR [CORPUS_DIR]

Runs `list --json`, `validate --json` and `watch --json` over the test data, over a library
written here (typed frontmatter values, a skipped skill, a warning) and, when CORPUS_DIR has
libraries, over every library root of the corpus; each document must validate against the
schema of its output and carry the `schema` version the schema names. Exits 1 on a mismatch.
"""
import json
import os
import pathlib
import subprocess
import sys
import tempfile

import jsonschema

program = os.path.abspath(sys.argv[1])
schema_dir, data_dir = pathlib.Path(sys.argv[2]).resolve(), pathlib.Path(sys.argv[3]).resolve()
corpus = pathlib.Path(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[4] else None

schemas = {p.name: json.loads(p.read_text()) for p in schema_dir.glob("*.schema.json")}
store = {s["$id"]: s for s in schemas.values()}
failures = []
checked = {}


def check(output, document, where):
    schema = schemas[output + ".schema.json"]
    jsonschema.Draft202012Validator.check_schema(schema)
    resolver = jsonschema.RefResolver.from_schema(schema, store=store)
    errors = sorted(jsonschema.Draft202012Validator(schema, resolver=resolver).iter_errors(document), key=str)
    for e in errors[:3]:
        failures.append(f"{where}: {output}: {'/'.join(map(str, e.absolute_path))}: {e.message}")
    checked[output] = checked.get(output, 0) + 1


def run(args, cwd, status=(0, 1)):
    r = subprocess.run([program, *args], cwd=cwd, capture_output=True, text=True, timeout=300)
    if r.returncode not in status:
        failures.append(f"{' '.join(args)}: exit {r.returncode}: {r.stderr[:300]}")
    return r.stdout


with tempfile.TemporaryDirectory() as tmp:
    lib = pathlib.Path(tmp, "lib")
    (lib / "typed").mkdir(parents=True)
    (lib / "typed" / "SKILL.md").write_text(
        "---\nname: typed\ndescription: Typed values.\ndisable-model-invocation: true\nversion: 1.0\n"
        "count: 12\nnothing: ~\nmetadata:\n  k: v\ntags: [a, b]\n---\nBody\n")
    (lib / "broken").mkdir()
    (lib / "broken" / "SKILL.md").write_text("no frontmatter\n")
    (lib / "warned").mkdir()
    (lib / "warned" / "SKILL.md").write_text("---\nname: Warned\ndescription: d\n---\n")

    listed = json.loads(run(["list", "--json", "--root", str(lib), "--root", str(data_dir / "library")], tmp))
    check("list", listed, "list (test data)")
    typed = [s for s in listed["skills"] if s["name"] == "typed"]
    if not typed or typed[0]["frontmatter"].get("disable-model-invocation") is not True:
        failures.append("list --json: the frontmatter value `true` is not typed as a boolean")
    check("validate", json.loads(run(["validate", "--json", "--root", str(lib)], tmp)), "validate (written)")
    validate_dir = data_dir / "validate"
    paths = sorted(str(p) for p in validate_dir.iterdir() if p.is_dir())
    check("validate", json.loads(run(["validate", "--json", *paths], tmp)), "validate (test data)")
    check("validate", json.loads(run(["validate", "--json", "--profile", "reference", *paths], tmp)),
          "validate --profile reference (test data)")
    lines = run(["watch", "--json", "--root", str(lib), "--max-events", "1", "--timeout-ms", "20000"], tmp,
                status=(0,)).splitlines()
    if len(lines) != 1:
        failures.append(f"watch --json printed {len(lines)} lines, not 1")
    for line in lines:
        check("watch", json.loads(line), "watch (written)")

if corpus is not None and not (corpus / "libraries").is_dir() and os.environ.get("AGENTSKILLS_REQUIRE_CORPUS"):
    failures.append(f"no shared corpus at {corpus} (AGENTSKILLS_REQUIRE_CORPUS is set)")
elif corpus is not None and (corpus / "libraries").is_dir():
    # A directory that is a skill itself (a nested skill's parent) is not a library: naming it as
    # a root is an error (docs/cli.md), which the exit-status tests check.
    roots = sorted({str(p.parent.parent) for p in (corpus / "libraries").rglob("SKILL.md")
                    if not (p.parent.parent / "SKILL.md").exists()})
    for root in roots:
        check("list", json.loads(run(["list", "--json", "--root", root], root)), f"list {root}")
        check("validate", json.loads(run(["validate", "--json", "--root", root], root)), f"validate {root}")

for output in ("list", "validate", "watch"):
    if not checked.get(output):
        failures.append(f"no {output} output was checked")
for f in failures:
    print(f, file=sys.stderr)
print(f"checked {sum(checked.values())} documents ({checked}); {len(failures)} problem(s)")
sys.exit(1 if failures else 0)
