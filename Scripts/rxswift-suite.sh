#!/usr/bin/env bash
# Runs RxSwift's own test suite (Tests/RxSwiftTests and the support files in Tests/) against
# Leash's Rx and RxTesting, as a user of RxSwift's API would see it.
#
#   Scripts/rxswift-suite.sh /path/to/RxSwift [--out DIR] [--trace-resources] [--cocoa]
#       [--exclude NAME=REASON]... [--exclusions FILE] [--build-only] [swift test arguments...]
#
# /path/to/RxSwift is a checkout of RxSwift 6.10 (or any tree laid out like one). Nothing of
# it enters this repository: the port package is generated in a temporary directory (or DIR,
# kept between runs so that builds are incremental), RxSwift's files are copied there with
# only their imports rewritten (RxSwift, RxRelay, RxCocoa -> Rx; RxTest, RxBlocking ->
# RxTesting), and Scripts/rxswift-suite/LeashShim.swift (our own code) stands in for the
# internal Platform helpers RxSwift compiles into its test target (RecursiveLock, AtomicInt,
# Queue, Synchronized, DispatchQueue.isMain) and for Tests/Resources.swift. Three files that
# reach into RxSwift's internals are always left out: DisposableTest, SubjectConcurrencyTest
# and Observable+Tests.
#
# --trace-resources compiles the suite with TRACE_RESOURCES, as RxSwift builds it: RxTest.swift
# then checks Resources.total after every test (AssumptionsTest fails without it). Two
# ConcatTests tests read RxSwift's internal maxTailRecursiveSinkStackSize, which the shim
# declares but Leash never updates, so they fail under it by construction.
#
# --cocoa also compiles Tests/RxCocoaTests and Tests/RxRelayTests (when the checkout has them)
# into the same test target, as RxSwift's own AllTestz target does, with the same import
# rewriting: RxCocoa's SharedSequence/Driver/Signal/Binder and RxRelay's tests against Leash's
# Rx. Their UIKit/AppKit/ObjC-runtime files are not expected in the tree; any file that does
# not belong is left out with --exclude/--exclusions like the others. RxCocoa's portable
# ControlEvent and ControlProperty traits are Leash's own (in Rx), so their tests and
# SignalTests.testControlEventAsSignal run like the rest.
#
# --exclude NAME=REASON leaves out one more file of Tests/RxSwiftTests (NAME relative to it,
# without .swift, e.g. Observable+ThrottleTests; or RxCocoaTests/NAME, RxRelayTests/NAME for
# a file of those folders) and prints the reason; --exclusions FILE reads
# such NAME=REASON lines from FILE (blank lines and lines starting with # are skipped). Use
# them for files that are not RxSwift 6.10's or do not compile in themselves, never to hide
# a gap in Leash. --build-only runs `swift build --build-tests` instead of the tests. Other
# arguments go to `swift test`, e.g. `--filter CompletableTest`.
set -euo pipefail

usage() {
    echo "usage: $0 /path/to/RxSwift [--out DIR] [--trace-resources] [--cocoa] [--exclude NAME=REASON]... [--exclusions FILE] [--build-only] [swift test arguments...]" >&2
    exit 2
}

[[ $# -ge 1 ]] || usage
checkout=$(cd "$1" && pwd) || usage
shift
out=""
defines=""
build_only=false
cocoa=false
excluded=()
reasons=()
while [[ $# -gt 0 ]]; do
    case $1 in
        --out) [[ $# -ge 2 ]] || usage; out=$2; shift 2 ;;
        --trace-resources) defines='.define("TRACE_RESOURCES"), '; shift ;;
        --exclude)
            [[ $# -ge 2 && $2 == *=?* ]] || usage
            excluded+=("${2%%=*}"); reasons+=("${2#*=}"); shift 2 ;;
        --exclusions)
            [[ $# -ge 2 && -f $2 ]] || usage
            while IFS= read -r line || [[ -n $line ]]; do
                [[ -z ${line//[[:space:]]/} || $line == \#* ]] && continue
                [[ $line == *=?* ]] || { echo "$2: not NAME=REASON: $line" >&2; exit 2; }
                excluded+=("${line%%=*}"); reasons+=("${line#*=}")
            done < "$2"
            shift 2 ;;
        --build-only) build_only=true; shift ;;
        --cocoa) cocoa=true; shift ;;
        *) break ;;
    esac
done

leash=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[[ -d $checkout/Tests/RxSwiftTests ]] || { echo "no Tests/RxSwiftTests in $checkout" >&2; exit 2; }

if [[ -z $out ]]; then
    out=$(mktemp -d "${TMPDIR:-/tmp}/rxswift-suite.XXXXXX")
    trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)

# RxSwift's test sources: Tests/*.swift (support) and Tests/RxSwiftTests (recursively).
rm -rf "$out/Tests"
mkdir -p "$out/Tests/RxSwiftTests"
find "$checkout/Tests" -maxdepth 1 -name '*.swift' ! -name 'LinuxMain.swift' -exec cp {} "$out/Tests/" \;
cp -R "$checkout/Tests/RxSwiftTests/." "$out/Tests/RxSwiftTests/"
if $cocoa; then
    for folder in RxCocoaTests RxRelayTests; do
        [[ -d $checkout/Tests/$folder ]] || continue
        mkdir -p "$out/Tests/$folder"
        cp -R "$checkout/Tests/$folder/." "$out/Tests/$folder/"
    done
fi
find "$out/Tests" -type f ! -name '*.swift' -delete
for internal in DisposableTest SubjectConcurrencyTest Observable+Tests; do
    rm -f "$out/Tests/RxSwiftTests/$internal.swift"
done
for i in "${!excluded[@]}"; do
    case ${excluded[$i]} in
        RxCocoaTests/* | RxRelayTests/*)
            $cocoa || continue
            file="$out/Tests/${excluded[$i]%.swift}.swift" ;;
        *) file="$out/Tests/RxSwiftTests/${excluded[$i]%.swift}.swift" ;;
    esac
    [[ -f $file ]] || { echo "--exclude ${excluded[$i]}: no such file in the tests" >&2; exit 2; }
    rm -f "$file"
    echo "excluded ${excluded[$i]%.swift}: ${reasons[$i]}" >&2
done
# Tests/Resources.swift forwards to RxSwift.Resources by module name; the shim's type alias to
# Leash's public Rx.Resources takes its place.
rm -f "$out/Tests/Resources.swift"

# The edits to RxSwift's files: their imports,
find "$out/Tests" -name '*.swift' -exec sed -i.orig -E \
    -e 's/^([[:space:]]*)(@testable )?import (RxSwift|RxRelay|RxCocoa)[[:space:]]*$/\1import Rx/' \
    -e 's/^([[:space:]]*)(@testable )?import (RxTest|RxBlocking)[[:space:]]*$/\1import RxTesting/' {} +
find "$out/Tests" -name '*.orig' -delete
# And one more, to three `#if`s: the async tests of Infallible+, Driver+ and
# Signal+ConcurrencyTests, which RxSwift keeps off Linux with a `!os(Linux)`. Leash's
# MainScheduler and swift-corelibs-xctest run them on Linux as on Apple platforms (an async
# test waits with the main run loop running, which serves the main queue and the main actor),
# so the port runs them there too. SharedSequence+
# ConcurrencyTests keeps its guard: its one test is a synchronous `@MainActor` method, which
# SwiftPM's Linux test list cannot call (the process stops on a failed cast of the method).
for name in RxSwiftTests/Infallible+ConcurrencyTests RxCocoaTests/Driver+ConcurrencyTests \
    RxCocoaTests/Signal+ConcurrencyTests; do
    [[ -f $out/Tests/$name.swift ]] || continue
    sed -i.orig -E 's/^(#if swift\(>=[0-9.]+\) && canImport\(_Concurrency\)) && !os\(Linux\)[[:space:]]*$/\1/' \
        "$out/Tests/$name.swift"
done
find "$out/Tests" -name '*.orig' -delete

cp "$leash/Scripts/rxswift-suite/LeashShim.swift" "$out/Tests/LeashShim.swift"
# PrimitiveSequenceTest+zip+arity extends SingleTest, which SingleTest.swift declares; when a
# tree has the first without the second, declare the (empty) class so the zip tests still run.
if [[ -f $out/Tests/RxSwiftTests/PrimitiveSequenceTest+zip+arity.swift && ! -f $out/Tests/RxSwiftTests/SingleTest.swift ]]; then
    printf '%s\n' '// Generated by Scripts/rxswift-suite.sh: SingleTest.swift is missing from this tree.' \
        'class SingleTest: RxTest {}' > "$out/Tests/LeashSingleTest.swift"
fi

leash_name=$(basename "$leash")
cat > "$out/Package.swift" <<MANIFEST
// swift-tools-version: 6.2
// Generated by Leash's Scripts/rxswift-suite.sh: RxSwift's test suite against Leash's Rx.
import PackageDescription

let package = Package(
    name: "RxSwiftSuite",
    platforms: [.macOS(.v12)],
    dependencies: [.package(path: "$leash")],
    targets: [
        .testTarget(
            name: "RxSwiftTests",
            dependencies: [
                .product(name: "Rx", package: "$leash_name"),
                .product(name: "RxTesting", package: "$leash_name"),
            ],
            path: "Tests",
            // RxSwift's tests are Swift 5 code.
            swiftSettings: [${defines}.swiftLanguageMode(.v5)]
        )
    ]
)
MANIFEST

cd "$out"
if $build_only; then
    swift build --build-tests "$@"
else
    swift test "$@"
fi
