#!/usr/bin/env python3
"""Checks the module layering that docs/ARCHITECTURE.md states, from the package description and
the sources themselves (SwiftPM lets a file import a package module that merely happens to be built
already, so declared dependencies alone prove nothing):

1. every `import` of a package module in a target's sources names one of that target's declared
   dependencies (direct or transitive);
2. the client (`AssetPacks`) reaches no packaging, publishing, server, upload, migration or agent code
   (nor libmicrohttpd),
   directly or transitively;
3. no library target depends on the CLI or on a test target.

Exit status 0 when all hold; 1 with one line per violation (file:line, module, why) otherwise."""
import json, os, re, subprocess, sys

CLIENT = "AssetPacks"
CLIENT_FORBIDDEN = {"AssetPackPackaging", "AssetPackPublishing", "AssetPackServer",
                    "AssetPackUpload", "AssetPackMigration", "AssetPackAgent", "CMicroHTTPD",
                    "AppleArchive", "CAppleCompression"}

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
described = subprocess.run(["swift", "package", "describe", "--type", "json"], cwd=root,
                           check=True, capture_output=True, text=True).stdout
targets = {t["name"]: t for t in json.loads(described)["targets"]}
deps = {n: set(t.get("target_dependencies") or []) for n, t in targets.items()}

def closure(name):
    seen, todo = set(), list(deps.get(name, ()))
    while todo:
        d = todo.pop()
        if d not in seen:
            seen.add(d)
            todo.extend(deps.get(d, ()))
    return seen

problems = []
import_line = re.compile(r"^\s*(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)")
for name, t in sorted(targets.items()):
    allowed = closure(name)
    for source in t.get("sources", []):
        path = os.path.join(root, t["path"], source)
        if not path.endswith(".swift"):
            continue
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                m = import_line.match(line)
                if m and m.group(1) in targets and m.group(1) != name and m.group(1) not in allowed:
                    problems.append(f"{os.path.relpath(path, root)}:{number}: imports {m.group(1)}, "
                                    f"which target {name} does not declare")

for bad in sorted(closure(CLIENT) & CLIENT_FORBIDDEN):
    problems.append(f"Package.swift: the client {CLIENT} reaches {bad}; it may link only what it reads")

for name, t in sorted(targets.items()):
    if t.get("type") in ("library", "regular"):
        for d in sorted(closure(name)):
            if targets.get(d, {}).get("type") in ("executable", "test"):
                problems.append(f"Package.swift: library target {name} depends on {targets[d]['type']} target {d}")

for p in problems:
    print(p)
print(f"layers: {len(targets)} targets checked, {len(problems)} problem(s)")
sys.exit(1 if problems else 0)
