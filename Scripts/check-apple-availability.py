#!/usr/bin/env python3
"""Checks that the Swift code uses no Apple API newer than the platforms Package.swift declares.

Nothing in CI builds for an Apple platform, so the compiler never sees an API that needs, say,
iOS 16 in a package that declares iOS 15. This script reads the minimums from Package.swift,
scans every .swift file under Sources/ and Playgrounds/ for the APIs listed in
Scripts/apple-availability.tsv (each with the version that introduced it on each platform,
and the Apple documentation page that says so), and prints

    path:line: <api> needs iOS 16 / macOS 13 …, Package.swift declares iOS 15 / macOS 12 …

for every use above a declared minimum, then exits 1. A use is fine when it is guarded:

- inside `if #available(…)` / `while #available(…)`, after `guard #available(…) else { … }`
  in the same scope, in the `else` of `if #unavailable(…)`, or in a declaration marked
  `@available(…)`, at a version high enough for the platform;
- in a branch of `#if` that no Apple platform compiles (`#if canImport(FoundationNetworking)`,
  `!canImport(Darwin)`, `os(Linux)`, …), or, for a platform, in a branch only other
  platforms compile (`#if os(macOS)` is checked against macOS only);
- for a compiler feature (the `swift` column), when swift-tools-version or an enclosing
  `#if compiler(>=…)` guarantees that compiler.

Comments and the contents of string literals are not code; interpolated `\\( )` code is.
Matching is by pattern, not by type checking: the patterns are written narrowly (a receiver
type, a label, an argument shape) and the table says what each one covers. A line that a
pattern matches wrongly (a method of our own with an API's name) can say so in a comment
containing `apple-availability: ignore`.

Usage:
    Scripts/check-apple-availability.py             check Sources/ and Playgrounds/
    Scripts/check-apple-availability.py FILE…       check these files
    Scripts/check-apple-availability.py --self-test run the checker on built-in fixtures
"""

import argparse
import os
import re
import sys

PLATFORMS = ("iOS", "macOS", "tvOS", "watchOS", "visionOS")
# What SwiftPM assumes for a platform that Package.swift leaves out (tools 6.2).
SWIFTPM_DEFAULT_MINIMUMS = {"macOS": (10, 13), "iOS": (12,), "tvOS": (12,), "watchOS": (4,), "visionOS": (1,)}
UNAVAILABLE = (10_000,)  # a platform an @available(…, unavailable) declaration never runs on

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = os.path.join(ROOT, "Scripts", "apple-availability.tsv")
SCANNED_DIRECTORIES = ("Sources", "Playgrounds")
IGNORE_MARKER = "apple-availability: ignore"


def version(text):
    """'10.15.4' → (10, 15, 4), trailing zeros dropped so that 13 == 13.0."""
    parts = [int(part) for part in text.split(".")]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def show(value, minimum_parts=1):
    """(13,) → '13'; with minimum_parts=2, (6,) → '6.0' (for Swift versions)."""
    parts = list(value) + [0] * (minimum_parts - len(value))
    return ".".join(str(part) for part in parts)


# MARK: Package.swift


def read_manifest(text):
    """The tools version and the minimum of each platform (SwiftPM's default where not declared)."""
    tools = re.search(r"//\s*swift-tools-version:\s*([\d.]+)", text)
    if not tools:
        raise SystemExit("check-apple-availability: no swift-tools-version line in Package.swift")
    minimums = dict(SWIFTPM_DEFAULT_MINIMUMS)
    platforms = re.search(r"platforms\s*:\s*\[(.*?)\]", text, re.S)
    if platforms:
        for name, dotted, quoted in re.findall(
            r"\.(macOS|iOS|tvOS|watchOS|visionOS)\s*\(\s*(?:\.v(\d+(?:_\d+)*)|\"([\d.]+)\")\s*\)", platforms.group(1)
        ):
            minimums[name] = version(dotted.replace("_", ".") if dotted else quoted)
    return version(tools.group(1)), minimums


# MARK: The table


class Entry:
    def __init__(self, fields):
        self.api, pattern, *versions, self.swift, self.when, self.source = fields
        self.pattern = re.compile(pattern, re.M)
        self.introduced = {
            platform: version(text)
            for platform, text in zip(("macOS", "iOS", "tvOS", "watchOS", "visionOS"), versions)
            if text != "-"
        }
        self.swift = version(self.swift) if self.swift != "-" else None
        kind, _, argument = self.when.partition(":")
        self.no_import = argument if kind == "no-import" else None
        self.receivers = set(argument.split(",")) if kind == "receiver" else None


def read_table(text):
    entries = []
    for line in text.splitlines():
        if not line.strip() or line.startswith("#") or line.startswith("api\t"):
            continue
        fields = line.split("\t")
        if len(fields) != 10:
            raise SystemExit(f"check-apple-availability: a table line needs 10 fields: {line!r}")
        entries.append(Entry(fields))
    return entries


# MARK: Reading Swift


def mask(source):
    """The source as code only: comments become spaces, each character of a string literal
    becomes x (an escape sequence is one character), regex literals' contents x too.
    Interpolated code stays. Line breaks stay where they were, so line numbers hold."""
    out = []
    i, n = 0, len(source)
    # Each frame: ("code", paren depth) for code (the outermost, or inside an interpolation),
    # ("string", quotes, hashes) for a string literal.
    stack = [["code", 0]]

    def blank(text):
        return "".join("\n" if c == "\n" else " " for c in text)

    while i < n:
        frame = stack[-1]
        c = source[i]
        if frame[0] == "code":
            if source.startswith("//", i):
                end = source.find("\n", i)
                end = n if end < 0 else end
                out.append(blank(source[i:end]))
                i = end
            elif source.startswith("/*", i):
                depth, j = 1, i + 2
                while j < n and depth:
                    if source.startswith("/*", j):
                        depth, j = depth + 1, j + 2
                    elif source.startswith("*/", j):
                        depth, j = depth - 1, j + 2
                    else:
                        j += 1
                out.append(blank(source[i:j]))
                i = j
            elif re.match(r"(#+)/", source[i:i + 8]):
                hashes = re.match(r"(#+)/", source[i:]).group(1)
                close = source.find("/" + hashes, i + len(hashes) + 1)
                close = n if close < 0 else close
                body = source[i + len(hashes) + 1:close]
                out.append(hashes + "/" + "".join("\n" if ch == "\n" else "x" for ch in body) + "/" + hashes)
                i = close + 1 + len(hashes)
            elif re.match(r"#*\"", source[i:i + 8]):
                hashes = re.match(r"(#*)", source[i:]).group(1)
                j = i + len(hashes)
                quotes = 3 if source.startswith('"""', j) else 1
                out.append(hashes + '"' * quotes)
                stack.append(["string", quotes, hashes])
                i = j + quotes
            elif c == "(":
                frame[1] += 1
                out.append(c)
                i += 1
            elif c == ")" and len(stack) > 1 and frame[1] == 0:
                stack.pop()  # the end of an interpolation: back in the string
                out.append(c)
                i += 1
            else:
                if c == ")":
                    frame[1] -= 1
                out.append(c)
                i += 1
        else:
            _, quotes, hashes = frame
            closing = '"' * quotes + hashes
            escape = "\\" + hashes
            if source.startswith(closing, i):
                stack.pop()
                out.append(closing)
                i += len(closing)
            elif source.startswith(escape + "(", i):
                out.append(escape + "(")
                stack.append(["code", 0])
                i += len(escape) + 1
            elif source.startswith(escape, i) and i + len(escape) < n:
                j = i + len(escape)
                if source[j] == "u" and j + 1 < n and source[j + 1] == "{":
                    j = source.find("}", j) + 1 or n
                else:
                    j += 1
                out.append("x")
                i = j
            elif c == "\n":
                out.append("\n")
                i += 1
            else:
                out.append("x")
                i += 1
    return "".join(out)


def line_starts(text):
    starts = [0]
    for match in re.finditer("\n", text):
        starts.append(match.end())
    return starts


def line_of(starts, offset):
    low, high = 0, len(starts) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if starts[middle] <= offset:
            low = middle
        else:
            high = middle - 1
    return low + 1


# MARK: #if


# Network.framework is on every Apple platform Package.swift can declare (macOS 10.14, iOS and tvOS
# 12, watchOS 5, visionOS 1), so `!canImport(Network)` is Linux only: the stand-in of
# Sources/Leash/WebSocket/Connection/Apple/NetworkStandIn is not Apple code.
APPLE_MODULES = {"Darwin", "Foundation", "Dispatch", "Security", "os", "ObjectiveC", "CoreFoundation", "Combine",
                 "Network"}
NON_APPLE_MODULES = {"FoundationNetworking", "FoundationEssentials", "Glibc", "Musl", "Android", "Bionic", "WinSDK",
                     "WASILibc", "ucrt", "CRT"}
NON_APPLE_SYSTEMS = {"Linux", "Windows", "Android", "FreeBSD", "OpenBSD", "WASI", "Cygwin", "PS4", "Haiku", "none"}
OS_NAMES = {"macOS": {"macOS", "OSX"}, "iOS": {"iOS"}, "tvOS": {"tvOS"}, "watchOS": {"watchOS"},
            "visionOS": {"visionOS", "xrOS"}}


def evaluate(condition, platform, tools):
    """The `#if` condition on `platform` with this tools version: True, False or None (unknown)."""
    tokens = re.findall(r"&&|\|\||!|\(|\)|[A-Za-z_][\w]*\s*\([^()]*\)|[A-Za-z_][\w]*", condition)
    position = 0

    def atom(token):
        call = re.match(r"(\w+)\s*\(\s*(.*?)\s*\)$", token)
        if not call:
            return {"true": True, "false": False}.get(token)
        name, argument = call.groups()
        if name == "canImport":
            module = argument.split(",")[0].strip()
            if module in APPLE_MODULES:
                return True
            if module in NON_APPLE_MODULES:
                return False
            if module == "AppKit":
                return platform == "macOS"
            return None
        if name == "os":
            if argument in NON_APPLE_SYSTEMS:
                return False
            for apple, names in OS_NAMES.items():
                if argument in names:
                    return apple == platform
            return None
        if name in ("compiler", "swift"):
            bound = re.match(r">=\s*([\d.]+)$", argument)
            if bound and tools >= version(bound.group(1)):
                return True
            return None
        return None

    def parse_or():
        nonlocal position
        value = parse_and()
        while position < len(tokens) and tokens[position] == "||":
            position += 1
            right = parse_and()
            value = True if value is True or right is True else (False if value is False and right is False else None)
        return value

    def parse_and():
        nonlocal position
        value = parse_unary()
        while position < len(tokens) and tokens[position] == "&&":
            position += 1
            right = parse_unary()
            value = False if value is False or right is False else (True if value is True and right is True else None)
        return value

    def parse_unary():
        nonlocal position
        if position >= len(tokens):
            return None
        token = tokens[position]
        position += 1
        if token == "!":
            value = parse_unary()
            return None if value is None else not value
        if token == "(":
            value = parse_or()
            if position < len(tokens) and tokens[position] == ")":
                position += 1
            return value
        return atom(token)

    return parse_or()


def compiler_bound(condition):
    """The compiler version a branch guarantees when its condition requires it outright."""
    if "||" in condition:
        return None
    bounds = [version(v) for v in re.findall(r"(?<!!)\b(?:compiler|swift)\s*\(\s*>=\s*([\d.]+)\s*\)", condition)]
    return max(bounds) if bounds else None


def conditional_compilation(masked, tools):
    """For each line (1-based): the Apple platforms that compile it, and the compiler version
    its `#if compiler(>=…)` branches guarantee."""
    lines = masked.split("\n")
    platforms_of = [None] * (len(lines) + 2)
    compiler_of = [None] * (len(lines) + 2)
    # Each open #if: per platform whether an earlier branch was surely taken, the active
    # platforms of the current branch, and its compiler bound.
    stack = []
    for number, text in enumerate(lines, start=1):
        directive = re.match(r"\s*#(if|elseif|else|endif)\b(.*)", text)
        if directive:
            kind, condition = directive.group(1), directive.group(2).strip()
            if kind == "if":
                stack.append({"taken": {p: False for p in PLATFORMS}, "active": set(), "compiler": None})
            if kind in ("if", "elseif") and stack:
                branch = stack[-1]
                branch["active"] = set()
                for platform in PLATFORMS:
                    value = evaluate(condition, platform, tools)
                    if not branch["taken"][platform] and value is not False:
                        branch["active"].add(platform)
                    if value is True:
                        branch["taken"][platform] = True
                branch["compiler"] = compiler_bound(condition)
            elif kind == "else" and stack:
                branch = stack[-1]
                branch["active"] = {p for p in PLATFORMS if not branch["taken"][p]}
                branch["compiler"] = None
            elif kind == "endif" and stack:
                stack.pop()
        active = set(PLATFORMS)
        bound = None
        for branch in stack:
            active &= branch["active"]
            if branch["compiler"] and (bound is None or branch["compiler"] > bound):
                bound = branch["compiler"]
        platforms_of[number] = active
        compiler_of[number] = bound
    return platforms_of, compiler_of


# MARK: #available and @available


def brace_pairs(masked):
    """Matching braces as (open offset, close offset), and each open's close."""
    pairs, closes, stack = [], {}, []
    for index, c in enumerate(masked):
        if c == "{":
            stack.append(index)
        elif c == "}" and stack:
            opening = stack.pop()
            pairs.append((opening, index))
            closes[opening] = index
    return pairs, closes


def enclosing_close(pairs, offset, length):
    best = None
    for opening, closing in pairs:
        if opening < offset < closing and (best is None or opening > best[0]):
            best = (opening, closing)
    return best[1] if best else length


def matching_paren(masked, opening):
    depth = 0
    for index in range(opening, len(masked)):
        if masked[index] == "(":
            depth += 1
        elif masked[index] == ")":
            depth -= 1
            if depth == 0:
                return index
    return len(masked) - 1


def next_brace(masked, start):
    """The first `{` at this nesting level from start, or None if the statement ends first."""
    depth = 0
    for index in range(start, len(masked)):
        c = masked[index]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "{" and depth <= 0:
            return index
        elif c == "}" and depth <= 0:
            return None
    return None


def availability_versions(arguments):
    """{platform: version} from `macOS 13, iOS 16, *` or `iOS, introduced: 16` or `tvOS, unavailable`."""
    versions = {}
    items = [item.strip() for item in arguments.split(",")]
    short = True
    for item in items:
        match = re.match(r"(macOS|OSX|iOS|tvOS|watchOS|visionOS|xrOS)\s+([\d.]+)$", item)
        if match:
            name = "macOS" if match.group(1) == "OSX" else "visionOS" if match.group(1) == "xrOS" else match.group(1)
            versions[name] = version(match.group(2))
        elif item != "*":
            short = False
    if versions and short:
        return versions
    if items and items[0] in ("macOS", "OSX", "iOS", "tvOS", "watchOS", "visionOS", "xrOS"):
        name = {"OSX": "macOS", "xrOS": "visionOS"}.get(items[0], items[0])
        for item in items[1:]:
            introduced = re.match(r"introduced\s*:\s*([\d.]+)$", item)
            if introduced:
                return {name: version(introduced.group(1))}
            if item == "unavailable":
                return {name: UNAVAILABLE}
    return {}


def availability_guards(masked):
    """(start, end, {platform: version}) offset ranges where the code may use APIs up to the
    versions: the bodies guarded by #available / #unavailable, and @available declarations."""
    guards = []
    pairs, closes = brace_pairs(masked)
    for match in re.finditer(r"#(available|unavailable)\s*\(", masked):
        opening = match.end() - 1
        closing = matching_paren(masked, opening)
        versions = availability_versions(masked[opening + 1:closing])
        if not versions:
            continue
        boundary = max(masked.rfind(c, 0, match.start()) for c in "{};")
        keywords = re.findall(r"\b(if|guard|while)\b", masked[boundary + 1:match.start()])
        if not keywords:
            continue
        keyword = keywords[-1]
        body = next_brace(masked, closing + 1)
        if body is None:
            continue
        body_end = closes.get(body, len(masked))
        if match.group(1) == "available":
            if keyword in ("if", "while"):
                guards.append((body, body_end, versions))
            else:  # guard #available(…) else { … }: the rest of the scope
                guards.append((body_end, enclosing_close(pairs, match.start(), len(masked)), versions))
        else:
            if keyword == "guard":  # guard #unavailable(…) else { here it is available }
                guards.append((body, body_end, versions))
            else:
                otherwise = re.match(r"\s*else\s*\{", masked[body_end + 1:])
                if otherwise:
                    start = body_end + otherwise.end()
                    guards.append((start, closes.get(start, len(masked)), versions))
    for match in re.finditer(r"@available\s*\(", masked):
        closing = matching_paren(masked, match.end() - 1)
        versions = availability_versions(masked[match.end():closing])
        if not versions:
            continue
        body = next_brace(masked, closing + 1)
        end = closes.get(body, len(masked)) if body is not None else masked.find("\n", closing)
        guards.append((match.start(), end if end >= 0 else len(masked), versions))
    return guards


# MARK: Checking


def receiver_type(masked, offset):
    """The declared type of the identifier just before offset (`lock` in `lock.withLock`)."""
    receiver = re.search(r"(\w+)\s*$", masked[:offset])
    if not receiver:
        return None
    name = re.escape(receiver.group(1))
    declaration = re.search(
        rf"\b(?:let|var)\s+{name}\s*(?::\s*([\w.]+))?\s*(?:=\s*([\w.]+)\s*[(<])?", masked
    )
    if not declaration:
        return None
    return declaration.group(1) or declaration.group(2)


def check_text(path, source, entries, tools, minimums):
    """The findings in one file, as printable lines."""
    masked = mask(source)
    starts = line_starts(masked)
    ignored = {number for number, text in enumerate(source.split("\n"), start=1) if IGNORE_MARKER in text}
    platforms_of, compiler_of = conditional_compilation(masked, tools)
    guards = availability_guards(masked)
    imports = set(re.findall(r"^[ \t]*(?:@\w+(?:\([^)]*\))?[ \t]+)*(?:\w+[ \t]+)?import[ \t]+(?:\w+[ \t]+)?(\w+)",
                             masked, re.M))
    findings = []
    for entry in entries:
        if entry.no_import and entry.no_import in imports:
            continue
        for match in entry.pattern.finditer(masked):
            if entry.receivers is not None and receiver_type(masked, match.start()) not in entry.receivers:
                continue
            line = line_of(starts, match.start())
            if line in ignored:
                continue
            above = []
            for platform in PLATFORMS:
                needed = entry.introduced.get(platform)
                if needed is None or platform not in platforms_of[line]:
                    continue
                have = minimums[platform]
                for start, end, versions in guards:
                    if start <= match.start() <= end and platform in versions:
                        have = max(have, versions[platform])
                if needed > have:
                    above.append((platform, needed, minimums[platform]))
            if above:
                needs = " / ".join(f"{p} {show(v)}" for p, v, _ in above)
                declared = " / ".join(f"{p} {show(m)}" for p, _, m in above)
                findings.append(f"{path}:{line}: {entry.api} needs {needs}, Package.swift declares {declared}")
            if entry.swift and entry.swift > max(tools, compiler_of[line] or (0,)):
                findings.append(
                    f"{path}:{line}: {entry.api} needs Swift {show(entry.swift, 2)}, Package.swift declares "
                    f"swift-tools-version {show(tools, 2)}")
    return sorted(set(findings), key=lambda f: (f.split(":")[0], int(f.split(":")[1]), f))


def swift_files(root):
    for directory in SCANNED_DIRECTORIES:
        for folder, _, names in sorted(os.walk(os.path.join(root, directory))):
            for name in sorted(names):
                if name.endswith(".swift"):
                    yield os.path.join(folder, name)


def run(arguments):
    with open(os.path.join(ROOT, "Package.swift"), encoding="utf-8") as manifest:
        tools, minimums = read_manifest(manifest.read())
    with open(TABLE, encoding="utf-8") as table:
        entries = read_table(table.read())
    paths = arguments.files or list(swift_files(ROOT))
    findings = []
    for path in paths:
        with open(path, encoding="utf-8") as file:
            findings += check_text(os.path.relpath(path, ROOT), file.read(), entries, tools, minimums)
    declared = " / ".join(f"{p} {show(minimums[p])}" for p in PLATFORMS)
    for finding in findings:
        print(finding)
    if findings:
        print(f"check-apple-availability: {len(findings)} use(s) above the declared minimums ({declared}). "
              "Use an API those versions have, or guard the use with if #available / @available.",
              file=sys.stderr)
        return 1
    print(f"check-apple-availability: {len(paths)} files, {len(entries)} APIs: nothing above {declared}, "
          f"Swift {show(tools, 2)}.")
    return 0


# MARK: Self-test

SELF_TEST_MANIFEST = """// swift-tools-version: 6.2
let package = Package(name: "Fixture", platforms: [.macOS(.v12), .iOS(.v15), .tvOS(.v15), .watchOS(.v8), .visionOS(.v1)])
"""

# Each line marked `// FAIL <api>` must be reported, with that API (and, after `on`, for exactly
# those platforms); no other line may be.
FAILING_FIXTURE = r'''
import Foundation

let scratch = URL.temporaryDirectory  // FAIL URL.temporaryDirectory on iOS macOS tvOS watchOS
func text(_ bytes: [UInt8]) -> String? { String(validating: bytes, as: UTF8.self) }  // FAIL String(validating:as:)
let words = "a, b".split(separator: ", ")  // FAIL split(separator:) with a String separator
let label = "home: \(URL.homeDirectory.path)"  // FAIL URL.homeDirectory
func onlyIOS() {
    if #available(iOS 16, *) {
        _ = URL.homeDirectory  // FAIL URL.homeDirectory on macOS tvOS watchOS
    }
}
@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
func tooLow(_ bytes: [UInt8]) -> String? {
    String(validating: bytes, as: UTF8.self)  // FAIL String(validating:as:) on iOS macOS tvOS watchOS visionOS
}
func outside() -> URL { URL(filePath: "/tmp") }  // FAIL URL(filePath:)
let big: Int128 = 1  // FAIL Int128 / UInt128
let lock = NSLock()
func locked() { lock.withLock { } }  // FAIL NSLocking.withLock(_:)
#if os(iOS)
    let iOSOnly = ContinuousClock.now  // FAIL ContinuousClock on iOS
#endif
#if !canImport(FoundationNetworking)
    let notLinux = Task.sleep(for: .seconds(1))  // FAIL Task.sleep(for:tolerance:clock:)
#endif
#if canImport(Network) || LEASH_APPLE_BRANCHES
    let connectorSide = URL.homeDirectory  // FAIL URL.homeDirectory
#endif
'''

PASSING_FIXTURE = r'''
import Foundation

// URL.temporaryDirectory and String(validating:as:) in a comment are not code.
/* Nor in a block comment: URL(filePath: "/tmp") /* nested */ URL.homeDirectory */
let quoted = "URL.temporaryDirectory, String(validating: x, as: UTF8.self), \(1 + 1)"
let multiline = """
    URL.homeDirectory "quoted" \(quoted)
    """
let raw = #"URL.temporaryDirectory \(not interpolated) "#
let lines = "a\nb".split(separator: "\n")  // one character: the old overload
let tmp = FileManager.default.temporaryDirectory
func guarded() -> URL? {
    if #available(macOS 13, iOS 16, tvOS 16, watchOS 9, *) {
        return URL.temporaryDirectory
    }
    return nil
}
func afterGuard() -> URL? {
    guard #available(macOS 13, iOS 16, tvOS 16, watchOS 9, *) else { return nil }
    return URL(filePath: "/tmp")
}
func unavailableElse() {
    if #unavailable(macOS 13, iOS 16, tvOS 16, watchOS 9) {
        print("old")
    } else {
        _ = URL.homeDirectory
    }
}
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
func validated(_ bytes: [UInt8]) -> String? {
    String(validating: bytes, as: UTF8.self)
}
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
struct Counter {
    let value = Mutex<Int>(0)
}
#if canImport(FoundationNetworking)
    let linuxOnly = URL.temporaryDirectory
#elseif canImport(Darwin)
    let apple = FileManager.default.temporaryDirectory
#endif
#if canImport(Synchronization) && !canImport(Darwin)
    import Synchronization
    let atomic = Atomic<Int>(0)
#endif
#if LEASH_APPLE_BRANCHES && !canImport(Network)
    let standIn = URL.temporaryDirectory
#endif
#if compiler(>=6.2)
    typealias Checked = Equatable & SendableMetatype
#endif
#if os(macOS)
    @available(macOS 13, *)
    func macOnly() -> URL { URL.homeDirectory }
#endif
struct Lock { func withLock<R>(_ body: () -> R) -> R { body() } }
let ownLock = Lock()
func ours() { ownLock.withLock { } }
let lines2 = "a b".contains("a b")  // Foundation is imported: its contains(_:) is the one chosen
struct Headers { func replacing(_ name: String) -> Headers { self } }
let headers = Headers().replacing("x")  // our own method: apple-availability: ignore
'''

SELF_TEST_ENTRIES = """api\tpattern\tmacOS\tiOS\ttvOS\twatchOS\tvisionOS\tswift\twhen\tsource
NSLocking.withLock(_:)\t\\.withLock\\s*[({]\t13\t16\t16\t9\t1\t-\treceiver:NSLock,NSRecursiveLock\t(pretending it were iOS 16, to test receivers)
"""


def self_test():
    tools, minimums = read_manifest(SELF_TEST_MANIFEST)
    with open(TABLE, encoding="utf-8") as table:
        entries = read_table(table.read())
    entries += read_table(SELF_TEST_ENTRIES)
    problems = []

    failing = check_text("failing.swift", FAILING_FIXTURE, entries, tools, minimums)
    expected = {}
    for number, text in enumerate(FAILING_FIXTURE.split("\n"), start=1):
        marker = re.search(r"// FAIL (.+?)(?: on ([\w ]+))?$", text)
        if marker:
            expected[number] = (marker.group(1).strip(), set(marker.group(2).split()) if marker.group(2) else None)
    reported = {}
    for finding in failing:
        number = int(finding.split(":")[1])
        reported.setdefault(number, []).append(finding)
    for number, (api, platforms) in expected.items():
        found = [f for f in reported.get(number, []) if f": {api} needs" in f]
        if not found:
            problems.append(f"failing fixture, line {number}: {api} was not reported")
        elif platforms is not None:
            needs = found[0].split(" needs ")[1].split(", Package.swift")[0]
            named = {item.split()[0] for item in needs.split(" / ")}
            if named != platforms:
                problems.append(f"failing fixture, line {number}: expected {sorted(platforms)}, got {found[0]}")
    for number, found in reported.items():
        if number not in expected:
            problems += [f"failing fixture: unexpected {f}" for f in found]

    passing = check_text("passing.swift", PASSING_FIXTURE, entries, tools, minimums)
    problems += [f"passing fixture: unexpected {f}" for f in passing]

    older = read_manifest(SELF_TEST_MANIFEST.replace("6.2", "6.0"))[0]
    compiler = check_text("compiler.swift", "typealias T = Equatable & SendableMetatype\n", entries, older, minimums)
    if not any("needs Swift 6.2" in f for f in compiler):
        problems.append("SendableMetatype with swift-tools-version 6.0 was not reported")

    for problem in problems:
        print("self-test: " + problem, file=sys.stderr)
    if problems:
        return 1
    print(f"check-apple-availability self-test: {len(expected)} uses reported as expected, "
          f"none in the guarded fixture.")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--self-test", action="store_true", help="check the checker on built-in fixtures")
    parser.add_argument("files", nargs="*", help="Swift files to check (default: Sources/ and Playgrounds/)")
    arguments = parser.parse_args()
    return self_test() if arguments.self_test else run(arguments)


if __name__ == "__main__":
    sys.exit(main())
