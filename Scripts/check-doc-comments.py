#!/usr/bin/env python3
"""Fails when a public or open declaration of a library product has no doc comment of its own.

Reads the symbol graphs that `swift package dump-symbol-graph --minimum-access-level public`
writes (the compiler's own list of public declarations, so nothing is missed by a regular
expression), keeps the products' modules (from `swift package dump-package`), and for each
symbol declared in that module's sources asks for a `///` comment written there. A symbol
whose only documentation is inherited from a protocol requirement in another module (an
`==` or a `description` documented by the standard library) counts as undocumented: say what
it means for this type. Members a type gets from another module's extension (Rx's operators
on RxTesting's `TestableObservable`) are checked where they are declared.

    swift package dump-symbol-graph --minimum-access-level public
    python3 Scripts/check-doc-comments.py [SYMBOL_GRAPH_DIRECTORY]

Prints each undocumented declaration as `path:line: name`, then the count per module; exits 1
if there are any.
"""

import glob
import json
import os
import re
import subprocess
import sys


def product_modules():
    """The modules of the package's library products, and those they re-export
    (`@_exported import`: RxTesting's RxTestingCore is what its users call)."""
    manifest = json.loads(subprocess.check_output(["swift", "package", "dump-package"], text=True))
    modules = set()
    for product in manifest["products"]:
        if "library" in product["type"]:
            modules.update(product["targets"])
    exported = re.compile(r"^\s*@_exported\s+(?:public\s+)?import\s+(\w+)", re.MULTILINE)
    for module in list(modules):
        for path in glob.glob(f"Sources/{module}/**/*.swift", recursive=True):
            for name in exported.findall(open(path, encoding="utf-8").read()):
                if os.path.isdir(f"Sources/{name}"):
                    modules.add(name)
    return modules


def symbol_graph_directory():
    if len(sys.argv) > 1:
        return sys.argv[1]
    bin_path = subprocess.check_output(["swift", "build", "--show-bin-path"], text=True).strip()
    return os.path.join(os.path.dirname(bin_path), "symbolgraph")


def main():
    directory = symbol_graph_directory()
    modules = product_modules()
    undocumented = {module: [] for module in modules}
    counted = {module: 0 for module in modules}
    graphs = glob.glob(os.path.join(directory, "*.symbols.json"))
    if not graphs:
        sys.exit(f"check-doc-comments: no symbol graphs in {directory} (run swift package dump-symbol-graph)")
    for path in graphs:
        graph = json.load(open(path, encoding="utf-8"))
        module = graph["module"]["name"]
        if module not in modules:
            continue
        own_sources = f"/Sources/{module}/"
        for symbol in graph["symbols"]:
            location = symbol.get("location", {})
            uri = location.get("uri", "")
            # Synthesized members (hashValue) have no location; members declared in another
            # module's sources are checked there.
            if own_sources not in uri:
                continue
            counted[module] += 1
            comment = symbol.get("docComment")
            if comment is not None and comment.get("module", module) == module:
                continue
            name = ".".join(symbol["pathComponents"])
            line = location.get("position", {}).get("line", 0) + 1
            undocumented[module].append(f"Sources/{uri.split('/Sources/', 1)[1]}:{line}: {name}")
    missing = 0
    for module in sorted(modules):
        for entry in sorted(undocumented[module]):
            print(entry)
        missing += len(undocumented[module])
    for module in sorted(modules):
        print(f"{module}: {counted[module]} public declarations, {len(undocumented[module])} without a doc comment")
    if missing:
        sys.exit(f"check-doc-comments: {missing} public declarations without a doc comment of their own")


if __name__ == "__main__":
    main()
