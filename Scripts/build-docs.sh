#!/usr/bin/env bash
# Builds the DocC documentation of every library product with the toolchain's own `docc`:
# no swift-docc-plugin, so the package keeps no dependencies.
#
#     bash Scripts/build-docs.sh                     # every product, into .build/docs/<Module>.doccarchive
#     bash Scripts/build-docs.sh --preview Leash     # `docc preview` of one module, PORT=8080 by default
#
# 1. `swift build` (a no-op after CI's own build), then `swift-symbolgraph-extract` reads the
#    built modules' public declarations into .build/docs/symbol-graphs/<Module>/: the module's
#    graph plus one per module it extends (`RxLeash@Rx.symbols.json`), extension blocks
#    included as the Swift Package Index's docc plugin emits them. A module a product
#    re-exports (`@_exported import RxTestingCore` in RxTesting) is documented as part of
#    that product (`-experimental-allowed-reexported-modules`), which
#    `swift package dump-symbol-graph` cannot do.
# 2. `docc convert` for each product's catalog, Sources/<Target>/<Target>.docc (its landing
#    page is <Target>.md), with `--warnings-as-errors`: a symbol link that does not resolve
#    or a `- Parameters:` list that leaves a parameter out fails the script. Every module is
#    converted before the script fails, so one run lists every warning. A preview shows
#    warnings without failing.
#
# The products and their targets come from `swift package dump-package`. Set DOCC or
# SYMBOLGRAPH_EXTRACT to use other binaries than the toolchain's.
set -euo pipefail
cd "$(dirname "$0")/.."

preview=""
case "${1:-}" in
    "") ;;
    --preview)
        preview="${2:?usage: Scripts/build-docs.sh [--preview MODULE]}"
        ;;
    -h | --help)
        awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"
        exit 0
        ;;
    *)
        echo "usage: Scripts/build-docs.sh [--preview MODULE]" >&2
        exit 2
        ;;
esac

# The toolchain's tools: through xcrun on macOS, beside `swift` elsewhere.
if command -v xcrun >/dev/null 2>&1; then
    docc="${DOCC:-$(xcrun --find docc)}"
    extract="${SYMBOLGRAPH_EXTRACT:-$(xcrun --find swift-symbolgraph-extract)}"
else
    toolchain_bin="$(dirname "$(readlink -f "$(command -v swift)")")"
    docc="${DOCC:-$toolchain_bin/docc}"
    extract="${SYMBOLGRAPH_EXTRACT:-$toolchain_bin/swift-symbolgraph-extract}"
fi

# Each library product's target, its catalog, and the modules it re-exports, one line each:
# `Target<TAB>Sources/Target/Target.docc<TAB>ReExported,Other`.
products=$(swift package dump-package | python3 -c '
import glob, json, os, re, sys
manifest = json.load(sys.stdin)
paths = {t["name"]: t.get("path") or os.path.join("Sources", t["name"]) for t in manifest["targets"]}
exported = re.compile(r"^\s*@_exported\s+(?:public\s+)?import\s+(\w+)", re.MULTILINE)
documented = []
for product in manifest["products"]:
    if "library" in product["type"]:
        documented += [target for target in product["targets"] if target not in documented]
for target in documented:
    # A re-exported target of the package is documented with the product that re-exports
    # it, unless it is a product of its own (RxTesting re-exports Rx too).
    found = set()
    for source in glob.glob(os.path.join(paths[target], "**", "*.swift"), recursive=True):
        for name in exported.findall(open(source, encoding="utf-8").read()):
            if name in paths and name not in documented:
                found.add(name)
    catalog = os.path.join(paths[target], target + ".docc")
    print("\t".join([target, catalog, ",".join(sorted(found))]))
')

if [ -n "$preview" ] && ! cut -f1 <<<"$products" | grep -qx "$preview"; then
    echo "error: $preview is not a library product's target; one of: $(cut -f1 <<<"$products" | tr '\n' ' ')" >&2
    exit 2
fi

echo "=== swift build"
swift build -q
bin=$(swift build --show-bin-path)
triple=$(swift -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["target"]["triple"])')

# What the compiler saw: the built modules, and the C modules' maps (system libraries and
# the generated maps of C targets) with their headers.
extract_flags=(-target "$triple" -I "$bin/Modules" -module-cache-path "$bin/ModuleCache"
    -minimum-access-level public -emit-extension-block-symbols)
for map in Sources/*/module.modulemap "$bin"/*.build/module.modulemap; do
    if [ -f "$map" ]; then extract_flags+=(-Xcc "-fmodule-map-file=$map"); fi
done
for include in Sources/*/include; do
    if [ -d "$include" ]; then extract_flags+=(-Xcc -I -Xcc "$include"); fi
done
if command -v xcrun >/dev/null 2>&1; then
    platform=$(xcrun --show-sdk-platform-path)
    extract_flags+=(-sdk "$(xcrun --show-sdk-path)" -F "$platform/Developer/Library/Frameworks"
        -I "$platform/Developer/usr/lib")
fi

docs=.build/docs
graphs=$docs/symbol-graphs

# symbol_graphs MODULE REEXPORTED: the module's graphs, into $graphs/MODULE.
symbol_graphs() {
    rm -rf "${graphs:?}/$1"
    mkdir -p "$graphs/$1"
    "$extract" -module-name "$1" "${extract_flags[@]}" ${2:+"-experimental-allowed-reexported-modules=$2"} \
        -output-dir "$graphs/$1"
}

# docc COMMAND MODULE CATALOG [ARGUMENTS…]: `docc convert` or `docc preview` of one module.
run_docc() {
    local command=$1 module=$2 catalog=$3
    shift 3
    "$docc" "$command" "$catalog" --fallback-display-name "$module" \
        --fallback-bundle-identifier "org.leash.$module" --additional-symbol-graph-dir "$graphs/$module" "$@"
}

if [ -n "$preview" ]; then
    IFS=$'\t' read -r module catalog reexported < <(awk -F'\t' -v m="$preview" '$1 == m' <<<"$products")
    symbol_graphs "$module" "$reexported"
    echo "=== docc preview $module (Ctrl-C stops it); warnings are shown, not fatal"
    mkdir -p "$docs/preview"
    run_docc preview "$module" "$catalog" --port "${PORT:-8080}" --output-path "$docs/preview/$module.doccarchive"
    exit
fi

failed=""
while IFS=$'\t' read -r module catalog reexported; do
    echo "=== $module"
    if [ ! -d "$catalog" ]; then
        echo "error: $module has no documentation catalog: add $catalog/$module.md" >&2
        failed="$failed $module"
        continue
    fi
    symbol_graphs "$module" "$reexported"
    rm -rf "$docs/$module.doccarchive"
    log=$(mktemp)
    # --warnings-as-errors makes docc fail on a warning; the log is checked too, in case a
    # warning ever reaches it without failing the conversion.
    if run_docc convert "$module" "$catalog" --output-path "$docs/$module.doccarchive" --warnings-as-errors \
        >"$log" 2>&1 &&
        ! grep -qE "(^|[^a-z])(warning|error):" "$log"; then
        echo "$docs/$module.doccarchive"
    else
        cat "$log" >&2
        failed="$failed $module"
    fi
    rm -f "$log"
done <<<"$products"

if [ -n "$failed" ]; then
    echo "error: docc reported problems in:$failed (warnings count as errors)" >&2
    exit 1
fi
echo "Documentation built, one archive per product, in $docs/ (open one with \`bash Scripts/build-docs.sh --preview MODULE\`)."
