import Rx

// The comparisons behind RxTesting's `XCTAssertEqual` overloads. They do not need XCTest,
// so they build everywhere and RxTesting's own tests can check their failure messages.

/// Whether two `Single` outcomes are equal: equal elements, or errors that are equal as in
/// `Event`'s `==`. `SingleEvent` is `Result<Element, Error>`, which cannot be `Equatable`
/// because `Error` is not.
func singleEventsAreEqual<Element: Equatable>(_ lhs: SingleEvent<Element>, _ rhs: SingleEvent<Element>) -> Bool {
    switch (lhs, rhs) {
    case (.success(let l), .success(let r)): return l == r
    case (.failure(let l), .failure(let r)): return errorsAreEqual(l, r)
    default: return false
    }
}

/// What an equality assertion reports when two lists differ: both lists, then each index
/// at which they differ (an index only one list has shows that list's item alone). `nil`
/// when the lists are equal under `equal`.
func listMismatch<Item>(_ lhs: [Item], _ rhs: [Item], _ equal: (Item, Item) -> Bool) -> String? {
    if lhs.count == rhs.count && zip(lhs, rhs).allSatisfy(equal) { return nil }
    var lines = ["(\"\(lhs)\") is not equal to (\"\(rhs)\")", "Differences:"]
    for index in 0..<max(lhs.count, rhs.count) {
        if index < lhs.count && index < rhs.count && equal(lhs[index], rhs[index]) { continue }
        if index < lhs.count { lines.append("lhs[\(index)]: \(lhs[index])") }
        if index < rhs.count { lines.append("rhs[\(index)]: \(rhs[index])") }
    }
    return lines.joined(separator: "\n")
}

/// What `XCTAssertRecordedElements` reports: the first stop event if the stream has one
/// (the assertion is about elements of a sequence still running), else how the elements
/// differ from `elements`; `nil` when they are the same.
func recordedElementsMismatch<Element: Equatable>(_ stream: [Recorded<Event<Element>>], _ elements: [Element])
    -> String?
{
    if let stop = stream.first(where: { $0.value.isStopEvent }) {
        return "the stream has a stop event: \(stop.debugDescription)"
    }
    // `element` is non-nil for every `next`, even when `Element` is itself optional.
    return listMismatch(stream.compactMap { $0.value.element }, elements, ==)
}
